import { ContextUpdate } from "../context/context-update.js";
import type { DepsOperation } from "../context/operations.js";
import { applyCompaction } from "./compaction-view.js";
import { isBuiltinEvent, isEventOf, type SessionEvent } from "./events.js";
import type { Message, ToolMessage, UserMessage } from "./messages.js";
import { addUsage, emptyUsage, type ReportedTokens, responseUsage, type Usage } from "./usage.js";

/** The model message an event projects to, or undefined for bookkeeping events. */
export function projectMessage(event: SessionEvent): Message | undefined {
  if (!isBuiltinEvent(event)) return undefined;
  switch (event.type) {
    case "user_message":
      // Blob references (a stored log not yet resolved: see `resolveBlobs`) pass through as they are.
      return { role: "user", content: event.data.content as UserMessage["content"] };
    case "assistant_message":
      return { role: "assistant", content: event.data.content };
    case "tool_result":
      return {
        role: "tool",
        toolCallId: event.data.toolCallId,
        toolName: event.data.toolName,
        result: event.data.result,
        isError: event.data.isError,
        // Blob references pass through as for user messages.
        ...(event.data.content === undefined ? {} : { content: event.data.content as ToolMessage["content"] }),
      };
    case "system_message":
      return { role: "system", content: event.data.content };
    case "tool_call":
    case "tool_call_result":
    case "tool_call_refused":
    case "context_update":
    case "model_request":
    case "model_response":
    case "approval_requested":
    case "approval_decided":
    case "run_started":
    case "run_resumed":
    case "agent_changed":
    case "tool_call_abandoned":
    case "run_completed":
    case "run_failed":
    case "tool_definitions":
    case "model_retry":
    case "model_fallback":
    case "model_stream_reset":
    case "partial_response":
    case "run_paused":
    case "compaction":
    case "provider_tool_call":
    case "provider_tool_result":
    case "provider_sources":
      return undefined;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/**
 * The messages the model sees: the projection of the surface events, in order, with each
 * `compaction` event applied to the messages before it (a summary in place of the range it
 * replaces, placeholders for dropped tool results; see `applyCompaction`).
 *
 * @example
 * projectMessages(result.log); // equals result.messages
 */
export function projectMessages(events: Iterable<SessionEvent>): Message[] {
  let messages: Message[] = [];
  let seqs: number[] = [];
  for (const event of events) {
    if (isEventOf(event, "compaction")) {
      const view = applyCompaction({ messages, seqs }, event.data);
      messages = view.messages as Message[];
      seqs = view.seqs as number[];
      continue;
    }
    const message = projectMessage(event);
    if (message !== undefined) {
      messages.push(message);
      seqs.push(event.seq);
    }
  }
  return messages;
}

/**
 * The deps state: `initial` plus the fold of every recorded `context_update`, through the one reducer.
 *
 * @example
 * projectDeps(result.log, initialDeps); // deep-equals result.deps
 */
export function projectDeps<D extends object>(events: Iterable<SessionEvent>, initial: D): D {
  return ContextUpdate.fromOperations<D>(recordedOperations(events)).toDeps(initial);
}

function* recordedOperations(events: Iterable<SessionEvent>): Iterable<DepsOperation> {
  for (const event of events) {
    if (event.type === "context_update") yield* (event.data as { operations: readonly DepsOperation[] }).operations;
  }
}

/**
 * The total usage recorded in the log: one request and its tokens per model response, one call per
 * `tool_call` intent — top-level or nested, a re-run of a call in doubt included, as the run counts
 * them. A nested call refused before it ran (`tool_call_refused`) or replayed from the log on resume
 * is not a call.
 */
export function projectUsage(events: Iterable<SessionEvent>): Usage {
  let usage = emptyUsage;
  for (const event of events) {
    if (event.type === "model_response") {
      usage = addUsage(usage, responseUsage((event.data as { usage: ReportedTokens }).usage));
    }
    if (event.type === "tool_call") usage = addUsage(usage, { toolCalls: 1 });
  }
  return usage;
}

/**
 * What a run used, from its events: `projectUsage` plus the usage its sub-agents reported
 * (`subagent_completed`, `subagent_failed`), each child counted once. A run resumed from its log
 * starts counting from here.
 *
 * @example
 * projectRunUsage(eventsOfTheRun); // equals the run's result.usage
 */
export function projectRunUsage(events: Iterable<SessionEvent>): Usage {
  let usage = emptyUsage;
  for (const event of events) {
    if (event.type === "model_response") {
      usage = addUsage(usage, responseUsage((event.data as { usage: ReportedTokens }).usage));
    } else if (event.type === "tool_call") {
      usage = addUsage(usage, { toolCalls: 1 });
    } else if (event.type === "subagent_completed" || event.type === "subagent_failed") {
      const reported = (event.data as { usage?: Partial<Usage> }).usage;
      if (reported !== undefined) usage = addUsage(usage, reported);
    }
  }
  return usage;
}
