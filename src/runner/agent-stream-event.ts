import type { BuiltinEventType, EventOf, SessionEvent } from "../session/events.js";
import type { OutputStreamEvent } from "./output-stream-event.js";
import type { RunResult } from "./types.js";

/**
 * A fragment of the model's answer as it streams in. Stream-only: the log records the whole answer
 * (`assistant_message`), or what was received of it when the stream was cut (`partial_response`)
 * or restarted (`model_stream_reset`).
 */
export type StreamDelta =
  | { readonly kind: "delta"; readonly type: "text-delta"; readonly text: string }
  | { readonly kind: "delta"; readonly type: "reasoning-delta"; readonly text: string }
  | { readonly kind: "delta"; readonly type: "tool-call-start"; readonly toolCallId: string; readonly toolName: string }
  | {
      readonly kind: "delta";
      readonly type: "tool-call-delta";
      readonly toolCallId: string;
      readonly argsTextDelta: string;
    }
  | {
      readonly kind: "delta";
      readonly type: "tool-call-end";
      readonly toolCallId: string;
      readonly toolName: string;
      /** The parsed arguments, or the raw text when it is not valid JSON. */
      readonly args: unknown;
    };

/** An event of the session log as the stream delivers it: the logged event itself, plus `kind`. */
export type StreamedLogEvent<E extends SessionEvent = SessionEvent> = E & { readonly kind: "event" };

/**
 * What `agent.stream()` yields, in order: every event the run appends to its session log
 * (`kind: "event"`, with the log's `seq`, `at`, `type` and `data`), and between them the deltas of
 * the model's answers (`kind: "delta"`) and, for a run with an `outputType`, its structured output
 * as it parses (`kind: "output"`, see `OutputStreamEvent`). The `kind: "event"` events are the
 * run's part of the log, one for one; the last is `run_completed`, `run_paused` or `run_failed`.
 *
 * @example
 * for await (const event of agent.stream("Hi")) {
 *   if (event.kind === "delta" && event.type === "text-delta") process.stdout.write(event.text);
 *   else if (isLogEvent(event, "tool_result")) console.log(event.data.toolName, event.data.result);
 * }
 */
export type AgentStreamEvent<O = unknown> = StreamDelta | StreamedLogEvent | OutputStreamEvent<O>;

/**
 * What `agent.stream()` returns: the run's events as an async iterable (the run starts when it is
 * first read and waits for the reader), and the run's `result`, which settles when the run ends:
 * it resolves with what `agent.run()` would, or rejects with the run's error — also with
 * `ApprovalPendingError` when the run paused (the stream itself then ends normally, its last event
 * `run_paused`). `result` never causes an unhandled rejection when nobody reads it.
 *
 * @example
 * const stream = agent.stream("Pay the invoice", { sessionId: "u42", store });
 * for await (const event of stream) if (event.kind === "event") console.log(event.seq, event.type);
 * const result = await stream.result; // or: rejects with ApprovalPendingError after `run_paused`
 */
export interface AgentStream<O = string, D extends object = Record<string, unknown>>
  extends AsyncIterable<AgentStreamEvent<O>> {
  readonly result: Promise<RunResult<O, D>>;
  [Symbol.asyncIterator](): AgentStreamIterator<O>;
}

/** The stream's iterator: `return()` stops the run (nothing more is recorded), `throw(error)` fails it with `error`. */
export interface AgentStreamIterator<O = unknown> extends AsyncIterableIterator<AgentStreamEvent<O>> {
  return(): Promise<IteratorResult<AgentStreamEvent<O>>>;
  throw(error: unknown): Promise<IteratorResult<AgentStreamEvent<O>>>;
}

/**
 * Whether a stream event is a delta (stream-only), not a log event.
 *
 * @example
 * const text = events.filter(isDelta).map((event) => (event.type === "text-delta" ? event.text : "")).join("");
 */
export function isDelta(event: AgentStreamEvent): event is StreamDelta {
  return event.kind === "delta";
}

/**
 * Whether a stream event is a log event (of the built-in `type`, when given), narrowing its `data`.
 *
 * @example
 * if (isLogEvent(event, "run_paused")) showApprovals(event.data.pending);
 */
export function isLogEvent(event: AgentStreamEvent): event is StreamedLogEvent;
export function isLogEvent<T extends BuiltinEventType>(
  event: AgentStreamEvent,
  type: T,
): event is StreamedLogEvent<EventOf<T>>;
export function isLogEvent(event: AgentStreamEvent, type?: unknown): boolean {
  // `type` is checked to be a string: `events.filter(isLogEvent)` passes an index there.
  return event.kind === "event" && (typeof type !== "string" || event.type === type);
}
