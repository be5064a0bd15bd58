import type { SessionStatus, SessionSummary } from "./session-store.js";

/** A summary as the stores hold it: nullable columns, times in epoch milliseconds. */
export interface SummaryColumns {
  readonly sessionId: string;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly lastSeq: number;
  readonly status: SessionStatus;
  readonly agent: string | null;
  readonly model: string | null;
  readonly parentSessionId: string | null;
  readonly forkedAtSeq: number | null;
}

/**
 * The public summary of stored columns; absent optional fields are left out rather than `null`.
 *
 * @example
 * toSummary({ sessionId: "s1", createdAtMs: 0, updatedAtMs: 0, lastSeq: 2, status: "idle",
 *   agent: null, model: null, parentSessionId: null, forkedAtSeq: null }).eventCount; // 2
 */
export function toSummary(columns: SummaryColumns): SessionSummary {
  const summary: { -readonly [K in keyof SessionSummary]: SessionSummary[K] } = {
    sessionId: columns.sessionId,
    createdAt: new Date(columns.createdAtMs).toISOString(),
    updatedAt: new Date(columns.updatedAtMs).toISOString(),
    // seq is dense from 1 in every session, forks included, so the count is the last seq.
    eventCount: columns.lastSeq,
    lastSeq: columns.lastSeq,
    status: columns.status,
  };
  if (columns.agent !== null) summary.agent = columns.agent;
  if (columns.model !== null) summary.model = columns.model;
  if (columns.parentSessionId !== null) summary.parentSessionId = columns.parentSessionId;
  if (columns.forkedAtSeq !== null) summary.forkedAtSeq = columns.forkedAtSeq;
  return summary;
}
