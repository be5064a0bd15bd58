import { parseStoredData } from "./event-checksum.js";
import { foldLifecycle, INITIAL_LIFECYCLE, LIFECYCLE_EVENT_TYPES, type LifecycleState } from "./session-status.js";
import type { SqliteStatement } from "./sqlite-driver.js";

const forkSite = { backend: "sqlite", operation: "fork" } as const;

/** The lifecycle state of a session's events up to `atSeq` (a fork's summary), from its stored rows. */
export function lifecycleUpTo(
  statement: (sql: string) => SqliteStatement,
  sessionId: string,
  atSeq: number,
): LifecycleState {
  const placeholders = LIFECYCLE_EVENT_TYPES.map(() => "?").join(", ");
  const rows = statement(
    `SELECT seq, type, data FROM events WHERE session_id = ? AND seq <= ? AND type IN (${placeholders}) ORDER BY seq`,
  ).all(sessionId, atSeq, ...LIFECYCLE_EVENT_TYPES) as { seq: number; type: string; data: string }[];
  let lifecycle = INITIAL_LIFECYCLE;
  for (const row of rows) {
    const data = parseStoredData(row.data, { sessionId, seq: row.seq }, forkSite);
    lifecycle = foldLifecycle(lifecycle, { type: row.type, data });
  }
  return lifecycle;
}
