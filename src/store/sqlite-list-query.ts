import { buildListQuery, type ListQueryDialect, type SessionRowColumns } from "./list-query.js";
import type { SessionSummary } from "./session-store.js";
import { toSummary } from "./session-summary.js";
import type { NormalizedListFilter } from "./store-arguments.js";

/** A sessions row as SQLite returns it (times in epoch milliseconds). */
export type SessionRow = SessionRowColumns<number>;

const sqliteDialect: ListQueryDialect = {
  table: "sessions",
  placeholder: () => "?",
  time: (ms) => ms,
  contains: (column, needle) => `instr(${column}, ${needle}) > 0`,
};

/**
 * The list query in SQLite's dialect.
 *
 * @example
 * const { sql, parameters } = buildSqliteListQuery(normalizeList({ limit: 10 }));
 */
export function buildSqliteListQuery(criteria: NormalizedListFilter): { sql: string; parameters: unknown[] } {
  return buildListQuery(criteria, sqliteDialect);
}

/**
 * The summary of a SQLite sessions row.
 *
 * @example
 * rows.map(summaryOfRow);
 */
export function summaryOfRow(row: SessionRow): SessionSummary {
  return toSummary({
    sessionId: row.session_id,
    createdAtMs: row.created_at,
    updatedAtMs: row.updated_at,
    lastSeq: row.last_seq,
    status: row.status,
    agent: row.agent,
    model: row.model,
    parentSessionId: row.parent_session_id,
    forkedAtSeq: row.forked_at_seq,
  });
}
