import { StreamTruncatedError } from "../errors/provider-error.js";
import type { ModelResponse, ModelStreamPart } from "../models/model.js";
import { raceAbort } from "./abort.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";
import type { Emit } from "./event-channel.js";
import { redactStreamParts } from "./redacted-stream-parts.js";
import { parseArgs } from "./tool-arguments.js";

/** Deltas are queued for the reader without waiting; the run pauses at `tool-call-end` and later events. */
const NO_PAUSE = { pause: false } as const;

/**
 * Forwards a model stream as agent stream events and returns the assembled response from its
 * `finish` part. A stream that ends without `finish` is truncated: nothing of it is used.
 */
export async function consumeModelStream<O, D extends object>(
  parts: AsyncIterable<ModelStreamPart>,
  provider: string,
  signal: AbortSignal | undefined,
  emit: Emit<AgentStreamEvent<O, D>>,
): Promise<ModelResponse> {
  const iterator = redactStreamParts(parts)[Symbol.asyncIterator]();
  const calls = new Map<string, { toolName: string; argsText: string }>();
  try {
    while (true) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case "text-delta":
          emit({ type: "text-delta", text: part.text }, NO_PAUSE);
          break;
        case "reasoning-delta":
          emit({ type: "reasoning-delta", text: part.text }, NO_PAUSE);
          break;
        case "tool-call-start":
          calls.set(part.toolCallId, { toolName: part.toolName, argsText: "" });
          emit({ type: "tool-call-start", toolCallId: part.toolCallId, toolName: part.toolName }, NO_PAUSE);
          break;
        case "tool-call-delta": {
          const call = calls.get(part.toolCallId);
          if (call) call.argsText += part.argsTextDelta;
          emit({ type: "tool-call-delta", toolCallId: part.toolCallId, argsTextDelta: part.argsTextDelta }, NO_PAUSE);
          break;
        }
        case "tool-call-end": {
          const call = calls.get(part.toolCallId);
          const parsed = parseArgs(call?.argsText ?? "");
          await emit({
            type: "tool-call-end",
            toolCallId: part.toolCallId,
            toolName: call?.toolName ?? "",
            args: parsed.ok ? parsed.value : (call?.argsText ?? ""),
          });
          break;
        }
        case "stream-reset":
          calls.clear();
          await emit({ type: "stream-reset", reason: part.reason });
          break;
        case "finish":
          return part.response;
        default: {
          const unhandled: never = part;
          throw new TypeError(`unknown stream part ${JSON.stringify(unhandled)}`);
        }
      }
    }
  } finally {
    // Always closed, so the model's stream releases what it holds (its listener on the run's
    // signal, the response body) even after `finish`. Not awaited: a generator parked in an await
    // (a hung model) would hold the run forever.
    iterator.return?.()?.catch(() => {});
  }
  throw new StreamTruncatedError({ provider, message: "the model stream ended without a finish part" });
}
