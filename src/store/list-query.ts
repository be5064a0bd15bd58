import type { SessionStatus } from "./session-store.js";
import type { NormalizedListFilter } from "./store-arguments.js";

/** How a SQL backend spells the parts of a list query. */
export interface ListQueryDialect {
  /** The qualified sessions table. */
  readonly table: string;
  /** The qualified leases table. */
  readonly leases: string;
  /** SQL for "now" as `leases.expires_at` counts time: a bound parameter, or the server's clock. */
  readonly now: (bind: (value: unknown) => string) => string;
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
 * The select list and table of a summary, aliased `s`. The status is derived: a session stored as
 * `running` with no live lease is reported `interrupted`.
 *
 * @example
 * const sql = `${summarySelect(dialect, bind)} WHERE s.session_id = ${bind("s1")}`;
 */
export function summarySelect(dialect: ListQueryDialect, bind: (value: unknown) => string): string {
  return `SELECT s.session_id, s.created_at, s.updated_at, s.last_seq, CASE WHEN s.status = 'running' AND NOT ${liveLease(dialect, bind)} THEN 'interrupted' ELSE s.status END AS status, s.agent, s.model, s.parent_session_id, s.forked_at_seq FROM ${dialect.table} AS s`;
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
  // Positional placeholders (`?`) bind in the order of the text: the select list comes first.
  const select = summarySelect(dialect, bind);
  const conditions: string[] = [];
  if (criteria.statuses !== undefined) conditions.push(statusCondition(criteria.statuses, dialect, bind));
  if (criteria.agent !== undefined) conditions.push(`s.agent = ${bind(criteria.agent)}`);
  if (criteria.updatedAfterMs !== undefined)
    conditions.push(`s.updated_at > ${bind(dialect.time(criteria.updatedAfterMs))}`);
  if (criteria.updatedBeforeMs !== undefined) {
    conditions.push(`s.updated_at < ${bind(dialect.time(criteria.updatedBeforeMs))}`);
  }
  if (criteria.search !== undefined) conditions.push(dialect.contains("s.search_text", bind(criteria.search)));
  if (criteria.after !== undefined) {
    const time = dialect.time(criteria.after.updatedAtMs);
    conditions.push(
      `(s.updated_at < ${bind(time)} OR (s.updated_at = ${bind(time)} AND s.session_id < ${bind(criteria.after.sessionId)}))`,
    );
  }
  const where = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  const sql = `${select}${where} ORDER BY s.updated_at DESC, s.session_id DESC LIMIT ${bind(criteria.limit + 1)}`;
  return { sql, parameters };
}

/** SQL true when a lease on session `s` is live (held and not expired). */
function liveLease(dialect: ListQueryDialect, bind: (value: unknown) => string): string {
  return `EXISTS (SELECT 1 FROM ${dialect.leases} AS l WHERE l.session_id = s.session_id AND l.owner IS NOT NULL AND l.expires_at > ${dialect.now(bind)})`;
}

/** The status filter on the stored status, with `running` split by lease into running and interrupted. */
function statusCondition(
  statuses: readonly SessionStatus[],
  dialect: ListQueryDialect,
  bind: (value: unknown) => string,
): string {
  if (statuses.length === 0) return "FALSE";
  const stored = statuses.filter((status) => status !== "running" && status !== "interrupted");
  const parts = stored.length === 0 ? [] : [`s.status IN (${stored.map((status) => bind(status)).join(", ")})`];
  const running = statuses.includes("running");
  const interrupted = statuses.includes("interrupted");
  if (running && interrupted) parts.push("s.status = 'running'");
  else if (running) parts.push(`(s.status = 'running' AND ${liveLease(dialect, bind)})`);
  else if (interrupted) parts.push(`(s.status = 'running' AND NOT ${liveLease(dialect, bind)})`);
  return `(${parts.join(" OR ")})`;
}
