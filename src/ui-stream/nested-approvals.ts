import type { EventOf, PausedApproval } from "../session/events.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

/**
 * Approvals a run paused for that no tool part of the message stands for: a call made by a
 * code-mode program (`parentToolCallId`) or by a sub-agent (`sessionId`: its own session). The UI
 * stream shows each as a tool part of its own, so the page can answer it as any other.
 */
export function isNestedApproval(approval: PausedApproval): boolean {
  return approval.parentToolCallId !== undefined || approval.sessionId !== undefined;
}

/**
 * The approval id (and tool call id of its part) the UI stream gives a pending approval: the tool
 * call id in the run's own session, `<sub-agent session>/<tool call id>` in a sub-agent's (ids of
 * two sessions may collide).
 *
 * @example
 * uiApprovalId({ sessionId: "u42/research-1", toolCallId: "call_1", toolName: "pay", args: {} }); // "u42/research-1/call_1"
 */
export function uiApprovalId(approval: { readonly sessionId?: string; readonly toolCallId: string }): string {
  return approval.sessionId === undefined ? approval.toolCallId : `${approval.sessionId}/${approval.toolCallId}`;
}

/** The parts of nested approvals: the call with its arguments, then its approval request. */
export function nestedApprovalChunks(approvals: readonly PausedApproval[]): UIMessageChunk[] {
  return approvals.flatMap((approval) => {
    const id = uiApprovalId(approval);
    return [
      { type: "tool-input-available", toolCallId: id, toolName: approval.toolName, input: approval.args },
      { type: "tool-approval-request", approvalId: id, toolCallId: id },
    ] satisfies UIMessageChunk[];
  });
}

/** The output chunk of a code-mode call whose approval the page was shown: its result, error or denial. */
export function nestedOutputChunk(
  event: EventOf<"tool_call_result"> | EventOf<"tool_call_refused">,
  denied: ReadonlySet<string>,
): UIMessageChunk {
  const { toolCallId } = event.data;
  if (event.type === "tool_call_refused") {
    if (denied.has(toolCallId)) return { type: "tool-output-denied", toolCallId };
    return { type: "tool-output-error", toolCallId, errorText: errorText(event.data.error) };
  }
  if (event.data.isError) return { type: "tool-output-error", toolCallId, errorText: errorText(event.data.result) };
  return { type: "tool-output-available", toolCallId, output: event.data.result };
}

/** A tool's error result as the text of a `tool-output-error`. */
export function errorText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}
