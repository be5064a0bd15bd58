import { type PendingApproval, pendingApprovalsOf } from "../approvals/approvals.js";
import { isEventOf, type SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import { uiApprovalId } from "./nested-approvals.js";

/**
 * The approvals a session's run waits for, by the approval id the UI stream gave them: the
 * session's own (its calls and its code-mode programs' calls) and, from its last `run_paused`,
 * its sub-agents' (each read from the sub-agent's session, so only a request still pending counts).
 */
export async function waitingApprovals(
  store: SessionStore,
  sessionId: string,
  events: readonly SessionEvent[],
): Promise<Map<string, PendingApproval>> {
  const waiting = new Map(pendingApprovalsOf(sessionId, events).map((approval) => [approval.toolCallId, approval]));
  const paused = events.findLast((event) => event.type === "run_paused" || event.type === "run_resumed");
  if (paused === undefined || !isEventOf(paused, "run_paused")) return waiting;
  for (const request of paused.data.pending) {
    if (request.sessionId === undefined || request.sessionId === sessionId) continue;
    const own = pendingApprovalsOf(request.sessionId, await store.read(request.sessionId));
    const approval = own.find((candidate) => candidate.toolCallId === request.toolCallId);
    if (approval !== undefined) waiting.set(uiApprovalId(request), approval);
  }
  return waiting;
}

/** The approval ids the session's log ever showed the page: its approval requests and every run_paused's. */
export function shownApprovalIds(events: readonly SessionEvent[]): Set<string> {
  const shown = new Set<string>();
  for (const event of events) {
    if (isEventOf(event, "approval_requested")) shown.add(event.data.toolCallId);
    else if (isEventOf(event, "run_paused")) for (const request of event.data.pending) shown.add(uiApprovalId(request));
  }
  return shown;
}
