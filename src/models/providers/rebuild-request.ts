import { RequestRebuildError } from "../../errors/request-rebuild-error.js";
import { hasBlobRefs } from "../../session/binary-parts.js";
import type { SessionEvent } from "../../session/events.js";
import { recordedRequest } from "../../session/recorded-request.js";
import { type AnthropicStructuredOutputMode, buildAnthropicRequest } from "./anthropic-request.js";
import { buildGeminiRequest } from "./gemini-request.js";
import { type MaxTokensField, toChatBody } from "./openai-chat-request.js";
import { toResponsesBody } from "./openai-responses-request.js";

/**
 * The exact JSON body a provider received for the request recorded at `seq`: a `model_request`, or
 * a `model_fallback` (the same request, sent to the next model of the chain). Built from the log
 * alone — the request's instructions, the tools its hash names, its settings and the messages of its
 * window — by the provider's own body builder, with the wire options and stream flag recorded. A
 * retried attempt sent the same body as its request. A log read from a store needs its image and
 * file parts resolved first (`resolveBlobs`). Throws `RequestRebuildError` for a request
 * without a wire format or over an unknown one, or with unresolved blob references, and `SessionLogFormatError` when `seq` names no
 * such event or the log lacks what it refers to.
 *
 * @example
 * const result = await agent.run("What is the weather in Paris?");
 * const first = result.log.find((event) => event.type === "model_request");
 * if (first) rebuildRequest(result.log, first.seq); // { model: "gpt-5-mini", input: [...], tools: [...] }
 */
export function rebuildRequest(log: readonly SessionEvent[], seq: number): Record<string, unknown> {
  const { wire, stream, request } = recordedRequest(log, seq);
  if (wire === undefined) throw new RequestRebuildError({ seq, problem: "no_wire" });
  if (hasBlobRefs(request.messages)) throw new RequestRebuildError({ seq, problem: "unresolved_blobs" });
  const options = wire.options ?? {};
  switch (wire.api) {
    case "openai-chat":
      return toChatBody(wire.modelId, request, {
        stream,
        maxTokensField: (options.maxTokensField as MaxTokensField | undefined) ?? "max_tokens",
        provider: (options.provider as string | undefined) ?? "openai-chat",
      });
    case "openai-responses":
      return toResponsesBody(wire.modelId, request, {
        stream,
        provider: (options.provider as string | undefined) ?? "openai",
      });
    case "anthropic":
      return buildAnthropicRequest(request, {
        modelId: wire.modelId,
        stream,
        structuredOutput: (options.structuredOutput as AnthropicStructuredOutputMode | undefined) ?? "native",
      }).body;
    case "gemini":
      return buildGeminiRequest(request);
    default:
      throw new RequestRebuildError({ seq, problem: "unknown_api", api: wire.api });
  }
}
