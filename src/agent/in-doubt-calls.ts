import { analyzeResumePoint } from "../runner/resume-analysis.js";
import type { SessionEvent } from "../session/events.js";
import { tornCall } from "./torn-tail.js";

/** A call `agent.resume` cannot settle alone: started, no recorded result, its tool not safe to run twice. */
export interface InDoubtCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The arguments its recorded intent ran with. */
  readonly args: unknown;
  /** Set for a nested call (code mode): the call of the program that made it. */
  readonly parentToolCallId?: string;
}

/** What `inDoubtCalls` needs to know of an agent's tools. */
export interface InDoubtTools {
  toolNamed(name: string): { readonly idempotent: boolean; readonly replayable?: boolean } | undefined;
}

/**
 * The calls a resume of this session with `agent` will hand to `resolveInDoubt` (or stop at with
 * `ToolInDoubtError` when there is none), in log order: the interrupted run's calls with an intent
 * and no result, except those whose tool runs again by itself (idempotent; replayable, like code
 * mode, whose nested calls in doubt are listed instead). Empty when the session has no unfinished
 * run. Lets a caller ask for every decision before it resumes.
 *
 * @example
 * for (const call of inDoubtCalls(await store.read("u42"), agent)) console.log(call.toolName, call.args);
 */
export function inDoubtCalls(events: readonly SessionEvent[], agent: InDoubtTools): InDoubtCall[] {
  const point = analyzeResumePoint(events);
  if (point === undefined || point.finished) return [];
  const torn = tornCall(events, point)?.toolCallId;
  const open = new Set([...point.resume.inDoubt].filter((id) => id !== torn));
  const calls: InDoubtCall[] = [];
  const rerun = new Set<string>();
  for (const id of open) {
    const toolName = toolNameOf(events, id);
    const tool = agent.toolNamed(toolName);
    // An unknown tool is answered "unknown tool"; an idempotent or replayable one runs again.
    if (tool?.idempotent || tool?.replayable) rerun.add(id);
    else if (tool !== undefined) calls.push({ toolCallId: id, toolName, args: point.resume.intentArgs.get(id) });
  }
  // The nested calls of a program that runs again are replayed from the log: those in doubt are asked about.
  for (const [toolCallId, entry] of point.resume.nested ?? []) {
    if (entry.state !== "started" || !rerun.has(entry.parentToolCallId)) continue;
    if (agent.toolNamed(entry.toolName)?.idempotent) continue;
    const { toolName, args, parentToolCallId } = entry;
    calls.push({ toolCallId, toolName, args, parentToolCallId });
  }
  return calls;
}

function toolNameOf(events: readonly SessionEvent[], toolCallId: string): string {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    const data = event.data as { toolCallId?: unknown; toolName?: unknown; parentToolCallId?: unknown };
    if (event.type === "tool_call" && data.toolCallId === toolCallId && data.parentToolCallId === undefined) {
      return String(data.toolName);
    }
  }
  return "";
}
