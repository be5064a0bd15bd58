import { type ApprovalPathStep, ApprovalPendingError, type PendingToolCall } from "../errors/run-errors.js";
import type { ChildPause } from "../session/run-seam.js";
import type { RunState } from "./run-state.js";

/**
 * The bookkeeping event a run records when a sub-agent it started paused for approval:
 * `{ toolCallId, childSessionId, childRunId, agent, pending: [{ sessionId, toolCallId, toolName }] }`.
 * The delegating call stays open; on resume it runs again and resumes the child. Stores report the
 * session as awaiting approval until the run resumes.
 */
export const SUBAGENT_PAUSED = "subagent_paused";

/**
 * Pauses the run because a sub-agent of `child.toolCallId` is waiting for approval: records
 * `subagent_paused`, waits until the store has it, and stops the run with an `ApprovalPendingError`
 * whose calls carry their path from this run's session down to the child's request. Returns the
 * error for the delegating tool to throw (the run ends with it, whatever the tool makes of it).
 */
export async function pauseForChild<D extends object, O>(state: RunState<D, O>, child: ChildPause): Promise<unknown> {
  const own = state.config.sessionId;
  const pending: PendingToolCall[] = child.pending.map((call) => {
    const sessionId = call.sessionId ?? child.childSessionId;
    const below: readonly ApprovalPathStep[] = call.path ?? [{ sessionId, toolCallId: call.toolCallId }];
    const path = own === undefined ? below : [{ sessionId: own, toolCallId: child.toolCallId }, ...below];
    return { ...call, sessionId, path };
  });
  state.record(SUBAGENT_PAUSED, {
    toolCallId: child.toolCallId,
    childSessionId: child.childSessionId,
    childRunId: child.childRunId,
    agent: child.agent,
    pending: pending.map(({ sessionId, toolCallId, toolName }) => ({ sessionId, toolCallId, toolName })),
  });
  let paused: unknown;
  try {
    await state.commit();
    paused = state.halt(new ApprovalPendingError(pending));
  } catch (error) {
    paused = state.halt(error);
  }
  state.haltReached(child.toolCallId);
  return paused;
}
