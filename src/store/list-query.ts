import type { SessionStatus } from "./session-store.js";
import type { NormalizedListFilter } from "./store-arguments.js";

/** How a SQL backend spells the parts of a list query. */
export interface ListQueryDialect {
  /** The qualified sessions table. */
  readonly table: string;
  /** The placeholder for the parameter at 1-based `index` (`?` or `$1`). */
  readonly placeholder: (index: number) => string;
  /** A time parameter, from epoch milliseconds. */
  readonly time: (ms: number) => unknown;
  /** SQL true when `needle` occurs in `column`. */
  readonly contains: (column: string, needle: string) => string;
}

/** The raw row of the sessions table, as both SQL backends name its columns. */
export interface SessionRowColumns<TIME> {
  readonly session_id: string;
  readonly created_at: TIME;
  readonly updated_at: TIME;
  readonly last_seq: number;
  readonly status: SessionStatus;
  readonly agent: string | null;
  readonly model: string | null;
  readonly parent_session_id: string | null;
  readonly forked_at_seq: number | null;
}

/**
 * The keyset-paginated list query: filters, then rows after the cursor in listing order (newest
 * `updated_at` first, then `session_id` descending), one more row than the page to know whether
 * another page follows.
 *
 * @example
 * buildListQuery(normalizeList({ agent: "support" }), sqliteDialect).sql;
 */
export function buildListQuery(
  criteria: NormalizedListFilter,
  dialect: ListQueryDialect,
): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const bind = (value: unknown): string => {
    parameters.push(value);
    return dialect.placeholder(parameters.length);
  };
  const conditions: string[] = [];
  if (criteria.statuses !== undefined) {
    conditions.push(
      criteria.statuses.length === 0
        ? "FALSE"
        : `status IN (${criteria.statuses.map((status) => bind(status)).join(", ")})`,
    );
  }
  if (criteria.agent !== undefined) conditions.push(`agent = ${bind(criteria.agent)}`);
  if (criteria.updatedAfterMs !== undefined)
    conditions.push(`updated_at > ${bind(dialect.time(criteria.updatedAfterMs))}`);
  if (criteria.updatedBeforeMs !== undefined) {
    conditions.push(`updated_at < ${bind(dialect.time(criteria.updatedBeforeMs))}`);
  }
  if (criteria.search !== undefined) conditions.push(dialect.contains("search_text", bind(criteria.search)));
  if (criteria.after !== undefined) {
    const time = dialect.time(criteria.after.updatedAtMs);
    conditions.push(
      `(updated_at < ${bind(time)} OR (updated_at = ${bind(time)} AND session_id < ${bind(criteria.after.sessionId)}))`,
    );
  }
  const where = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  const sql = `SELECT session_id, created_at, updated_at, last_seq, status, agent, model, parent_session_id, forked_at_seq FROM ${dialect.table}${where} ORDER BY updated_at DESC, session_id DESC LIMIT ${bind(criteria.limit + 1)}`;
  return { sql, parameters };
}
