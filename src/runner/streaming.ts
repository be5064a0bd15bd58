import { StreamTruncatedError } from "../errors/provider-error.js";
import { CancelledError } from "../errors/run-errors.js";
import { type Model, type ModelResponse, type ModelStreamPart, modelName } from "../models/model.js";
import type { PartialOutput } from "../session/events.js";
import { recordedError } from "../session/recorded-error.js";
import { raceAbort } from "./abort.js";
import type { StreamDelta } from "./agent-stream-event.js";
import { ConsumerStoppedError } from "./event-channel.js";
import type { OutputStreamEvent } from "./output-stream-event.js";
import { redactStreamParts } from "./redacted-stream-parts.js";
import type { RunState } from "./run-state.js";
import { structuredOutputStream } from "./structured-output-stream.js";
import { parseArgs } from "./tool-arguments.js";

const NO_PAUSE = { pause: false } as const;

/**
 * Sends one delta to the stream's reader, after every log event recorded before it (so deltas sit
 * between log events exactly where they happened). The run waits for the reader at `tool-call-end`
 * only; other deltas are queued. The one place deltas leave the run.
 */
export function emitDelta<D extends object, O>(
  state: RunState<D, O>,
  delta: StreamDelta | OutputStreamEvent,
): Promise<void> | undefined {
  const emit = state.config.emit;
  if (emit === undefined) return undefined;
  state.publish(false);
  return delta.type === "tool-call-end" ? emit(delta) : emit(delta, NO_PAUSE);
}

/** What one model stream has produced so far (since its last reset). */
class Received {
  text = "";
  reasoning = "";
  readonly calls = new Map<string, { toolName: string; argsText: string; complete: boolean }>();

  get empty(): boolean {
    return this.text === "" && this.reasoning === "" && this.calls.size === 0;
  }

  output(): PartialOutput {
    return {
      text: this.text,
      reasoning: this.reasoning,
      toolCalls: [...this.calls].map(([toolCallId, call]) => ({ toolCallId, ...call })),
    };
  }
}

/**
 * Forwards a model stream to the run's reader as deltas and returns the assembled response from its
 * `finish` part. A stream that ends without `finish` is truncated: nothing of it is used. What was
 * received is recorded when it does not become an answer: `model_stream_reset` when the stream
 * restarts (a retry, a fallback), `partial_response` when it fails or the run is aborted mid-stream
 * — bookkeeping only, so no half-received text or call ever reaches the messages.
 */
export async function consumeModelStream<D extends object, O>(
  state: RunState<D, O>,
  model: Model,
  parts: AsyncIterable<ModelStreamPart>,
): Promise<ModelResponse> {
  const signal = state.config.signal;
  const iterator = redactStreamParts(parts)[Symbol.asyncIterator]();
  let received = new Received();
  // Partial structured output, from the redacted parts (see StructuredOutputStream).
  const output = structuredOutputStream(state.config.output, state.config.emit && ((event) => emitDelta(state, event)));
  try {
    while (true) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case "text-delta":
          received.text += part.text;
          emitDelta(state, { kind: "delta", type: "text-delta", text: part.text });
          break;
        case "reasoning-delta":
          received.reasoning += part.text;
          emitDelta(state, { kind: "delta", type: "reasoning-delta", text: part.text });
          break;
        case "tool-call-start": {
          const { toolCallId, toolName } = part;
          received.calls.set(toolCallId, { toolName, argsText: "", complete: false });
          emitDelta(state, { kind: "delta", type: "tool-call-start", toolCallId, toolName });
          break;
        }
        case "tool-call-delta": {
          const call = received.calls.get(part.toolCallId);
          if (call) call.argsText += part.argsTextDelta;
          const { toolCallId, argsTextDelta } = part;
          emitDelta(state, { kind: "delta", type: "tool-call-delta", toolCallId, argsTextDelta });
          break;
        }
        case "tool-call-end": {
          const call = received.calls.get(part.toolCallId);
          if (call) call.complete = true;
          const parsed = parseArgs(call?.argsText ?? "");
          const args = parsed.ok ? parsed.value : (call?.argsText ?? "");
          const toolName = call?.toolName ?? "";
          await emitDelta(state, { kind: "delta", type: "tool-call-end", toolCallId: part.toolCallId, toolName, args });
          break;
        }
        case "stream-reset": {
          const discarded = received.output();
          received = new Received();
          state.record("model_stream_reset", { model: modelName(model), reason: part.reason, discarded });
          const publishing = state.publish(true);
          if (publishing) await publishing;
          break;
        }
        case "finish": {
          const ending = output?.accept(part);
          if (ending) await ending;
          return part.response;
        }
        default: {
          const unhandled: never = part;
          throw new TypeError(`unknown stream part ${JSON.stringify(unhandled)}`);
        }
      }
      const shaping = output?.accept(part);
      if (shaping) await shaping;
    }
  } catch (error) {
    // A reader that stopped reading unwinds the run: nothing more is recorded.
    if (!(error instanceof ConsumerStoppedError) && !received.empty) recordPartial(state, model, received, error);
    throw error;
  } finally {
    // Always closed, so the model's stream releases what it holds (its listener on the run's
    // signal, the response body) even after `finish`. Not awaited: a generator parked in an await
    // (a hung model) would hold the run forever.
    iterator.return?.()?.catch(() => {});
  }
  const truncated = new StreamTruncatedError({
    provider: model.provider,
    message: "the model stream ended without a finish part",
  });
  if (!received.empty) recordPartial(state, model, received, truncated);
  throw truncated;
}

function recordPartial<D extends object, O>(
  state: RunState<D, O>,
  model: Model,
  received: Received,
  error: unknown,
): void {
  const aborted = error instanceof CancelledError || state.config.signal?.aborted === true;
  state.record("partial_response", {
    model: modelName(model),
    reason: aborted ? "aborted" : "failed",
    ...(aborted ? {} : { error: recordedError(error) }),
    output: received.output(),
  });
}
