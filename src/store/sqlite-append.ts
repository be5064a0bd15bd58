import { SessionConflictError } from "../errors/store-errors.js";
import { CHAIN_START, chainChecksums, type StoredEvent } from "./event-checksum.js";
import type { BatchOutcome } from "./group-commit.js";
import { fenceProblem } from "./lease-rules.js";
import { applyLifecycle, type PreparedAppend } from "./prepared-append.js";
import { INITIAL_LIFECYCLE, type LifecycleState, lifecycleFromColumns } from "./session-status.js";
import type { SqliteStatement } from "./sqlite-driver.js";
import { leaseRowOf, type StoredLease } from "./sqlite-lease.js";
import { lifecycleColumns } from "./sqlite-list-query.js";

/** What the write helpers need of a SQLite store: its cached statements and its clock. */
export interface SqliteWriter {
  readonly statement: (sql: string) => SqliteStatement;
  readonly now: () => number;
}

/** What an append checks, in one row whether or not the session and its lease exist. */
const APPEND_STATE_SQL = `SELECT s.last_seq, s.run_status, s.agent, s.model, s.pending_approvals,
  (SELECT checksum FROM events WHERE session_id = k.id AND seq = s.last_seq) AS last_checksum,
  l.owner, l.token, l.expires_at
  FROM (SELECT ? AS id) k LEFT JOIN sessions s ON s.session_id = k.id LEFT JOIN leases l ON l.session_id = k.id`;

interface AppendStateRow {
  readonly last_seq: number | null;
  readonly run_status: string | null;
  readonly agent: string | null;
  readonly model: string | null;
  readonly pending_approvals: string | null;
  readonly last_checksum: string | null;
  readonly owner: string | null;
  readonly token: number | null;
  readonly expires_at: number | null;
}

/**
 * Applies one append inside the batch's immediate transaction: checks its fence and expected last
 * seq, writes the session row and the events (chained to the session's last checksum). Returns
 * the append's own refusal, if any, so the rest of the batch commits.
 *
 * @example
 * db.transaction("immediate", () => items.map((item) => applySqliteAppend(writer, item)));
 */
export function applySqliteAppend(writer: SqliteWriter, item: PreparedAppend): BatchOutcome {
  // One statement reads all the append checks: the lease, the session row and its last checksum.
  const row = writer.statement(APPEND_STATE_SQL).get(item.sessionId) as AppendStateRow;
  const lease = row.token === null ? undefined : leaseRowOf(row as StoredLease);
  const leaseProblem = fenceProblem(item.sessionId, lease, item.fence, writer.now());
  if (leaseProblem !== undefined) return leaseProblem;
  const actualLastSeq = row.last_seq ?? 0;
  if (actualLastSeq !== item.expectedLastSeq) {
    return new SessionConflictError({
      sessionId: item.sessionId,
      expectedLastSeq: item.expectedLastSeq,
      actualLastSeq,
    });
  }
  if (item.events.length === 0) return undefined;
  const lastSeq = item.expectedLastSeq + item.events.length;
  if (row.last_seq === null) {
    insertSqliteSession(writer, item.sessionId, lastSeq, applyLifecycle(INITIAL_LIFECYCLE, item), undefined);
  } else if (item.lifecycleEvents.length === 0) {
    // Nothing changes the status, agent or model: only the time and the last seq are written.
    writer
      .statement("UPDATE sessions SET updated_at = ?, last_seq = ? WHERE session_id = ?")
      .run(writer.now(), lastSeq, item.sessionId);
  } else {
    const previous = lifecycleFromColumns({
      runStatus: row.run_status as string,
      agent: row.agent,
      model: row.model,
      pendingApprovals: row.pending_approvals as string,
    });
    writer
      .statement(
        "UPDATE sessions SET updated_at = ?, last_seq = ?, status = ?, run_status = ?, agent = ?, model = ?, pending_approvals = ?, search_text = ? WHERE session_id = ?",
      )
      .run(writer.now(), lastSeq, ...lifecycleColumns(item.sessionId, applyLifecycle(previous, item)), item.sessionId);
  }
  const insert = writer.statement(
    "INSERT INTO events (session_id, seq, at, type, run_id, data, checksum) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  for (const event of chainChecksums(row.last_checksum ?? CHAIN_START, item.events)) {
    insert.run(item.sessionId, event.seq, event.at, event.type, event.runId, event.data, event.checksum);
  }
  return undefined;
}

/**
 * Inserts a session's row (a first append, or a fork with its parent).
 *
 * @example
 * insertSqliteSession(writer, "s1", 3, INITIAL_LIFECYCLE, undefined);
 */
export function insertSqliteSession(
  writer: SqliteWriter,
  sessionId: string,
  lastSeq: number,
  lifecycle: LifecycleState,
  fork: { parentSessionId: string; forkedAtSeq: number } | undefined,
): void {
  const now = writer.now();
  writer
    .statement(
      "INSERT INTO sessions (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text, parent_session_id, forked_at_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .run(
      sessionId,
      now,
      now,
      lastSeq,
      ...lifecycleColumns(sessionId, lifecycle),
      fork?.parentSessionId ?? null,
      fork?.forkedAtSeq ?? null,
    );
}

/**
 * Rows of `SELECT seq, at, type, run_id, data, checksum` fetched as arrays (`values`), as stored
 * events: one object literal per row, cheaper than the driver's rows keyed by column name.
 *
 * @example
 * const rows = storedEvents(db.prepare(sql).values("s1", 1, -1));
 */
export function storedEvents(rows: readonly unknown[][]): StoredEvent[] {
  const events = new Array<StoredEvent>(rows.length);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as [number, string, string, string | null, string, string];
    events[index] = { seq: row[0], at: row[1], type: row[2], runId: row[3], data: row[4], checksum: row[5] };
  }
  return events;
}
