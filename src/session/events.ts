import type { DepsOperation } from "../context/operations.js";
import type { AssistantPart, UserContentPart } from "./messages.js";
import type { Usage } from "./usage.js";

/** Where an event stands in its session. `seq` is dense and increasing within a session. */
export interface EventMeta {
  readonly seq: number;
  /** ISO 8601 time the event was recorded. */
  readonly at: string;
  readonly sessionId?: string;
  readonly runId?: string;
}

/** Data of each built-in event type. Surface types first, then bookkeeping. */
export interface EventDataMap {
  user_message: { readonly content: string | readonly UserContentPart[] };
  assistant_message: { readonly content: readonly AssistantPart[] };
  tool_result: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly result: unknown;
    readonly isError: boolean;
  };
  system_message: { readonly content: string };
  /** The intent of a call, committed before it runs; a nested call (code mode) names its parent. */
  tool_call: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly args: unknown;
    readonly parentToolCallId?: string;
    /** A nested call's arguments as its caller passed them, when they differ from `args` (a schema default, a hook, an edit). */
    readonly requestedArgs?: unknown;
    /** Set when a resumed run runs a call in doubt again. */
    readonly rerun?: boolean;
  };
  /** The result of a nested call (bookkeeping: only the parent's `tool_result` reaches the model). */
  tool_call_result: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly parentToolCallId: string;
    readonly result: unknown;
    readonly isError: boolean;
    readonly durationMs: number;
  };
  /** A nested call refused before it ran (unknown tool, invalid arguments, denied, not approved): no intent, no effect. */
  tool_call_refused: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly parentToolCallId: string;
    readonly args: unknown;
    readonly isError: true;
    readonly error: unknown;
    readonly durationMs: number;
  };
  context_update: {
    readonly toolCallId?: string;
    readonly toolName?: string;
    /** Set when the update came from a nested call. */
    readonly parentToolCallId?: string;
    readonly operations: readonly DepsOperation[];
  };
  model_request: { readonly model: string; readonly iteration: number; readonly messageCount: number };
  model_response: {
    readonly model: string;
    readonly usage: Usage;
    readonly finishReason: string;
    readonly latencyMs: number;
  };
  approval_requested: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly args: unknown;
    /** Set for a nested call (code mode): the call that made it. */
    readonly parentToolCallId?: string;
    /** A nested call's arguments as its caller passed them, when they differ from `args`. */
    readonly requestedArgs?: unknown;
  };
  approval_decided: {
    readonly toolCallId: string;
    readonly approved: boolean;
    readonly args?: unknown;
    readonly reason?: string;
  };
  run_started: {
    readonly runId: string;
    /** The agent's name (absent for an unnamed agent). */
    readonly agent?: string;
    /** SHA-256 of the agent's definition (`Agent.identity`); absent in sessions recorded before it existed. */
    readonly agentHash?: string;
    readonly model?: string;
    /** Set on a sub-agent's run: the parent run's session, run and the tool call that started it. */
    readonly parentSessionId?: string;
    readonly parentRunId?: string;
    readonly parentToolCallId?: string;
    readonly depth?: number;
  };
  /**
   * The session goes on with another agent than the one its log names, allowed by the caller
   * (`allowAgentChange`); recorded before the run that uses it.
   */
  agent_changed: {
    readonly from: { readonly name?: string; readonly hash?: string };
    readonly to: { readonly name?: string; readonly hash: string };
    readonly reason?: string;
  };
  /** A resume of an interrupted run (crash, approval, in doubt) began. */
  run_resumed: { readonly runId: string };
  /** A call left in doubt (intent, no result) of an idempotent tool, given up when a new run started. */
  tool_call_abandoned: { readonly toolCallId: string; readonly toolName: string; readonly reason: string };
  run_completed: { readonly runId: string; readonly output?: unknown };
  run_failed: { readonly runId: string; readonly error: { readonly code: string; readonly message: string } };
}

export type BuiltinEventType = keyof EventDataMap;

/** An event of one built-in type. */
export type EventOf<T extends BuiltinEventType> = EventMeta & { readonly type: T; readonly data: EventDataMap[T] };

/** Every built-in event, as a union tagged by `type`. */
export type BuiltinEvent = { [T in BuiltinEventType]: EventOf<T> }[BuiltinEventType];

/** A user-defined bookkeeping event, recorded by `logEvent`. */
export interface CustomEvent extends EventMeta {
  readonly type: string;
  readonly data: unknown;
}

/** One entry of the session log. */
export type SessionEvent = BuiltinEvent | CustomEvent;

/** Event types that project to a model message. */
export const SURFACE_EVENT_TYPES = Object.freeze([
  "user_message",
  "assistant_message",
  "tool_result",
  "system_message",
] as const);
export type SurfaceEventType = (typeof SURFACE_EVENT_TYPES)[number];

const surface = new Set<string>(SURFACE_EVENT_TYPES);
const builtin = new Set<string>([
  ...SURFACE_EVENT_TYPES,
  "tool_call",
  "tool_call_result",
  "tool_call_refused",
  "context_update",
  "model_request",
  "model_response",
  "approval_requested",
  "approval_decided",
  "run_started",
  "run_resumed",
  "agent_changed",
  "tool_call_abandoned",
  "run_completed",
  "run_failed",
] satisfies BuiltinEventType[]);

export function isSurfaceType(type: string): type is SurfaceEventType {
  return surface.has(type);
}

export function isBuiltinEvent(event: SessionEvent): event is BuiltinEvent {
  return builtin.has(event.type);
}

/** Narrows an event to one built-in type. */
export function isEventOf<T extends BuiltinEventType>(event: SessionEvent, type: T): event is EventOf<T> {
  return event.type === type;
}
