import { buildListQuery, type ListQueryDialect, type SessionRowColumns, summarySelect } from "./list-query.js";
import { type LifecycleState, searchTextOf, statusOf } from "./session-status.js";
import type { SessionSummary } from "./session-store.js";
import { toSummary } from "./session-summary.js";
import type { SqliteValue } from "./sqlite-driver.js";
import type { NormalizedListFilter } from "./store-arguments.js";

/** A sessions row as SQLite returns it (times in epoch milliseconds). */
export type SessionRow = SessionRowColumns<number>;

/** SQLite's dialect; lease times are compared with `nowMs`, the store's clock. */
function sqliteDialect(nowMs: number): ListQueryDialect {
  return {
    table: "sessions",
    leases: "leases",
    now: (bind) => bind(nowMs),
    placeholder: () => "?",
    time: (ms) => ms,
    contains: (column, needle) => `instr(${column}, ${needle}) > 0`,
  };
}

/**
 * The list query in SQLite's dialect, with statuses as of `nowMs`.
 *
 * @example
 * const { sql, parameters } = buildSqliteListQuery(normalizeList({ limit: 10 }), Date.now());
 */
export function buildSqliteListQuery(
  criteria: NormalizedListFilter,
  nowMs: number,
): { sql: string; parameters: SqliteValue[] } {
  const { sql, parameters } = buildListQuery(criteria, sqliteDialect(nowMs));
  return { sql, parameters: parameters as SqliteValue[] }; // strings and numbers only
}

/**
 * The summary query of one session in SQLite's dialect, with its status as of `nowMs`.
 *
 * @example
 * db.prepare(sqliteSummaryQuery(Date.now(), "s1").sql);
 */
export function sqliteSummaryQuery(nowMs: number, sessionId: string): { sql: string; parameters: SqliteValue[] } {
  const parameters: SqliteValue[] = [];
  const bind = (value: unknown) => {
    parameters.push(value as SqliteValue);
    return "?";
  };
  const sql = `${summarySelect(sqliteDialect(nowMs), bind)} WHERE s.session_id = ${bind(sessionId)}`;
  return { sql, parameters };
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

/** The lifecycle columns of a session row, in the order the store's statements list them. */
export function lifecycleColumns(sessionId: string, lifecycle: LifecycleState) {
  return [
    statusOf(lifecycle),
    lifecycle.runStatus,
    lifecycle.agent,
    lifecycle.model,
    JSON.stringify(lifecycle.pendingApprovals),
    searchTextOf(sessionId, lifecycle),
  ] as const;
}
