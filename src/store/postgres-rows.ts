import type { SessionRowColumns } from "./list-query.js";
import type { SessionSummary } from "./session-store.js";
import { toSummary } from "./session-summary.js";

/** A PostgreSQL session row (times as `Date`) as a summary. */
export function summaryOfRow(row: SessionRowColumns<Date>): SessionSummary {
  return toSummary({
    sessionId: row.session_id,
    createdAtMs: row.created_at.getTime(),
    updatedAtMs: row.updated_at.getTime(),
    lastSeq: row.last_seq,
    status: row.status,
    agent: row.agent,
    model: row.model,
    parentSessionId: row.parent_session_id,
    forkedAtSeq: row.forked_at_seq,
  });
}
