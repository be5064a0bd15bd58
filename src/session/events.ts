import type { DepsOperation } from "../context/operations.js";
import type { RecordedCost } from "../cost/recorded-cost.js";
import type {
  ModelSettings,
  ModelUsage,
  NativeOutputSpec,
  ToolChoice,
  ToolDefinition,
  WireTarget,
} from "../models/model.js";
import type { ProviderTool } from "../models/provider-tool.js";
import type { BlobRefPart } from "./binary-parts.js";
import type { AssistantPart, Message, ToolResultPart, UserContentPart } from "./messages.js";
import type { ProviderSourcesData, ProviderToolCallData, ProviderToolResultData } from "./provider-tool-events.js";

/** Where an event stands in its session. `seq` is dense and increasing within a session. */
export interface EventMeta {
  /** @asType integer */
  readonly seq: number;
  /** ISO 8601 time the event was recorded. */
  readonly at: string;
  readonly sessionId?: string;
  readonly runId?: string;
}

/** Data of each built-in event type. Surface types first, then bookkeeping. */
export interface EventDataMap {
  /** A store's copy holds binary parts by reference (`BlobRefPart`); a run's log holds their data. */
  user_message: { readonly content: string | readonly (UserContentPart | BlobRefPart)[] };
  assistant_message: { readonly content: readonly AssistantPart[] };
  tool_result: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly result: unknown;
    readonly isError: boolean;
    /** Images, files or text the tool returned beside `result` (see `toolContent`); by reference in a store's copy. */
    readonly content?: readonly (ToolResultPart | BlobRefPart)[];
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
    /** "initial": the state deps a session started with (no tool call); absent for a tool's update. */
    readonly origin?: "initial";
    readonly operations: readonly DepsOperation[];
  };
  /**
   * A request as it was sent: with the `tool_definitions` it names and the surface events of its
   * window, enough to rebuild the exact body (`rebuildRequest`). Messages are referenced, not copied.
   */
  model_request: {
    readonly model: string;
    readonly iteration: number;
    readonly messageCount: number;
    /** How the request reached its provider (absent for a model without a wire format: scripted, function). */
    readonly wire?: WireTarget;
    /** Whether the request was streamed (`agent.stream`). */
    readonly stream?: boolean;
    /** The system text sent apart from the messages. */
    readonly instructions?: string;
    /** The `hash` of the `tool_definitions` event holding the tools sent (absent: no tools). */
    readonly toolsHash?: string;
    readonly toolChoice?: ToolChoice;
    readonly output?: NativeOutputSpec;
    readonly outputToolName?: string;
    readonly settings?: RecordedSettings;
    /** The messages sent, as inclusive `[fromSeq, toSeq]` ranges of surface events of this log. */
    readonly window?: readonly (readonly [number, number])[];
    /** The messages themselves, only when a `preRequest` hook sent others than the log's projection. */
    readonly messages?: readonly Message[];
    /** Why the request was made, when not for the run's next step: `"compaction"` for a summarization call. */
    readonly purpose?: RequestPurpose;
    /** Messages sent after those of the window (a summarization call's instruction). */
    readonly appended?: readonly Message[];
  };
  model_response: {
    readonly model: string;
    /** The tokens as the provider reported them (`projectUsage` turns them into a run's `Usage`). */
    readonly usage: ModelUsage;
    readonly finishReason: string;
    readonly latencyMs: number;
    /** The provider's id of the response (e.g. `chatcmpl-…`, `msg_…`, `resp_…`). */
    readonly responseId?: string;
    /** The provider's id of the HTTP request (a `x-request-id` / `request-id` header). */
    readonly requestId?: string;
    /** What the response cost (see `RecordedCost`); absent in logs written before costs were recorded, or with `pricing: false`. */
    readonly cost?: RecordedCost;
    /** Set when the response answers a request made for another purpose than the run's next step (see `model_request`). */
    readonly purpose?: RequestPurpose;
  };
  /** A set of tool definitions, recorded once per distinct set in a session; requests name it by `hash`. */
  tool_definitions: {
    readonly hash: string;
    readonly tools: readonly ToolDefinition[];
    /** The provider tools sent beside the function tools (hosted web search, code execution). */
    readonly providerTools?: readonly ProviderTool[];
  };
  /** An attempt of a model request failed and is retried after `delayMs`. */
  model_retry: {
    readonly model: string;
    /** 1 for the first retry. */
    readonly attempt: number;
    readonly error: RecordedError;
    /** The server's `retry-after`, when it sent one and it was used as the delay. */
    readonly retryAfterMs?: number;
    readonly delayMs: number;
  };
  /** A model of a fallback chain failed; the request goes to the next one (`to`, sent over `wire`). */
  model_fallback: {
    readonly from: string;
    readonly to: string;
    readonly wire?: WireTarget;
    readonly error: RecordedError;
  };
  /** A streamed answer restarted (a retry or a fallback after some output): what was discarded. */
  model_stream_reset: { readonly model: string; readonly reason: string; readonly discarded: PartialOutput };
  /**
   * What a model had produced when its answer was cut off (the run aborted or failed mid-stream).
   * Bookkeeping: it projects to no message, so a continuation never sees it and a half-received
   * tool call never runs.
   */
  partial_response: {
    readonly model: string;
    readonly reason: "aborted" | "failed";
    readonly error?: RecordedError;
    readonly output: PartialOutput;
  };
  /** The run stopped to wait for approvals (its last event until a decision and `resume`). */
  run_paused: { readonly runId: string; readonly pending: readonly PausedApproval[] };
  /** A provider tool the model called and the provider ran (a hosted web search), reported by the answer before it. */
  provider_tool_call: ProviderToolCallData;
  /** What a provider tool returned, with the sources it found; reported by the same answer as its call. */
  provider_tool_result: ProviderToolResultData;
  /** The sources the text of an answer cites (URL and file citations). */
  provider_sources: ProviderSourcesData;
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
  /**
   * The model's view of the session was compacted (see `CompactionPolicy`). Bookkeeping: it projects
   * to no message itself, but the messages projection applies it to the messages before it; the
   * events it stands for stay in the log.
   */
  compaction: CompactionData;
}

/** Why a model request was made, when not for the run's next step. */
export type RequestPurpose = "compaction";

/** What a `compaction` event records; `strategy` says which fields it has. */
export type CompactionData =
  | {
      readonly strategy: "summarize";
      /** The summary shown in place of the replaced messages (as a user message). */
      readonly summary: string;
      /** The inclusive `[fromSeq, toSeq]` range of events whose messages the summary replaces (system messages stay). */
      readonly replaces: readonly [number, number];
      /** The seq of the summarization call's `model_request`. */
      readonly requestSeq: number;
      /** Estimated tokens of the next request before and after (see `estimateRequestTokens`). */
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | {
      readonly strategy: "drop_tool_results";
      /** The tool calls whose results are shown as `placeholder` from here on. */
      readonly dropped: readonly string[];
      readonly placeholder: string;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    };

/** Settings as recorded: the request's `ModelSettings`, JSON-normalized. */
export type RecordedSettings = ModelSettings;

/** An error as the log keeps it. `name` is the error's class. */
export interface RecordedError {
  readonly code: string;
  readonly name: string;
  readonly message: string;
  readonly status?: number;
}

/** Output received before a stream was cut off or reset. Tool calls in it were never executed. */
export interface PartialOutput {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: readonly {
    readonly toolCallId: string;
    readonly toolName: string;
    /** The argument text received so far (maybe not valid JSON). */
    readonly argsText: string;
    /** Whether the call's arguments were complete (`tool-call-end` seen) when the stream stopped. */
    readonly complete: boolean;
  }[];
}

/** A pending approval as `run_paused` records it; `path` names the sub-agent sessions down to it. */
export interface PausedApproval {
  readonly sessionId?: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly parentToolCallId?: string;
  readonly path?: readonly { readonly sessionId: string; readonly toolCallId: string }[];
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
  "tool_definitions",
  "model_retry",
  "model_fallback",
  "model_stream_reset",
  "partial_response",
  "run_paused",
  "compaction",
  "provider_tool_call",
  "provider_tool_result",
  "provider_sources",
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
