import type { ResumePoint } from "../runner/resume-analysis.js";
import type { AgentContext } from "../session/agent-context.js";
import { isBuiltinEvent, type SessionEvent } from "../session/events.js";

/**
 * A tool call whose record a log cuts short: its intent and its state change (`context_update`, the
 * log events it returned) are in the log, its `tool_result` is not. A run commits a call's update,
 * events and result together, so a crash never leaves this; a fork at any seq can (`store.fork`
 * copies a prefix). The call ran to its end — its update proves it — so running it again would
 * repeat its effect and apply its update twice.
 */
export interface TornCall {
  readonly toolCallId: string;
  readonly toolName: string;
}

/** What a result unit adds after a call's intent, before its result: its update and its log events. */
function isResultPart(event: SessionEvent): boolean {
  const data = event.data as { parentToolCallId?: unknown; origin?: unknown } | undefined;
  if (event.type === "context_update") return data?.parentToolCallId === undefined && data?.origin !== "initial";
  return !isBuiltinEvent(event);
}

/**
 * The call a log's tail cuts short, if any (only the last call's record can be cut: a fork is a
 * prefix). The tail is the run of update and log events at the end of the log; the call is the one
 * its `context_update` names, else the first call of the interrupted turn still in doubt.
 */
export function tornCall(events: readonly SessionEvent[], point: ResumePoint): TornCall | undefined {
  let start = events.length;
  while (start > 0 && isResultPart(events[start - 1] as SessionEvent)) start--;
  if (start === events.length || start === 0) return undefined;
  const before = (events[start - 1] as SessionEvent).data as { parentToolCallId?: unknown } | undefined;
  // After a nested call, the tail is that call's (a program still running), not its parent's.
  if (before?.parentToolCallId !== undefined) return undefined;
  const calls = (point.pending?.content ?? []).flatMap((part) =>
    part.type === "tool-call" && point.resume.inDoubt.has(part.toolCallId)
      ? [{ toolCallId: part.toolCallId, toolName: part.toolName }]
      : [],
  );
  const named = events
    .slice(start)
    .map((event) => (event.type === "context_update" ? (event.data as { toolCallId?: string }).toolCallId : undefined))
    .find((id) => id !== undefined);
  const found = named === undefined ? calls[0] : calls.find((call) => call.toolCallId === named);
  // A call that paused the run (its sub-agent or a nested call waits for approval) is open, not torn.
  return found !== undefined && point.resume.paused?.has(found.toolCallId) ? undefined : found;
}

/**
 * Finishes a torn call's record before a resume goes on: `tool_call_abandoned` (why), then the
 * result the model reads (the call completed; its state change is kept, its result was not
 * recorded). Returns the resume point without the call, so it is neither run nor settled again.
 */
export function settleTornCall<D extends object>(
  context: AgentContext<D>,
  point: ResumePoint,
  torn: TornCall,
): { context: AgentContext<D>; point: ResumePoint } {
  const reason = "its state change was recorded but its result was not (the log ends inside its record); not run again";
  const settled = context.logEvent("tool_call_abandoned", { ...torn, reason }).addMessage({
    role: "tool",
    ...torn,
    result: "The call completed and its state change is kept, but its result was not recorded in this session.",
    isError: false,
  });
  const inDoubt = new Set(point.resume.inDoubt);
  inDoubt.delete(torn.toolCallId);
  const content = (point.pending?.content ?? []).filter(
    (part) => part.type !== "tool-call" || part.toolCallId !== torn.toolCallId,
  );
  const open = content.some((part) => part.type === "tool-call");
  const pending = point.pending === undefined || !open ? undefined : { ...point.pending, content };
  return { context: settled, point: { ...point, pending, resume: { ...point.resume, inDoubt } } };
}
