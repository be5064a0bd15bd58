import type { RecordedCost } from "../cost/recorded-cost.js";
import { FALLBACK_PROVIDER, firstOfChain } from "../models/fallback.js";
import type { ModelUsage, WireTarget } from "../models/model.js";
import type { RecordedSettings } from "../session/events.js";
import type { SpanAttributes } from "./planned-span.js";

/**
 * `gen_ai.provider.name` values of the OpenTelemetry GenAI conventions, by Nous provider prefix.
 * A prefix not listed (a local server, `scripted`, a registered provider) is used as it is.
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: "openai",
  "openai-chat": "openai",
  anthropic: "anthropic",
  gemini: "gcp.gemini",
  mistral: "mistral_ai",
  groq: "groq",
  deepseek: "deepseek",
  xai: "x_ai",
};

/**
 * The provider and model of a `"provider:model"` name as the log records it (and of its wire, when
 * recorded). A fallback chain (`"fallback:openai:a,anthropic:b"`) is named by its first model, the
 * one its requests go to first.
 */
export function modelParts(recorded: string, wire?: WireTarget): { provider: string; model: string } {
  const name = recorded.startsWith(FALLBACK) ? firstOfChain(recorded.slice(FALLBACK.length)) : recorded;
  const colon = name.indexOf(":");
  const prefix = colon === -1 ? name : name.slice(0, colon);
  const model = wire?.modelId ?? (colon === -1 ? name : name.slice(colon + 1));
  return { provider: PROVIDER_NAMES[prefix] ?? prefix, model };
}

const FALLBACK = `${FALLBACK_PROVIDER}:`;

/**
 * The model id of a `model_response`'s `model`: `"provider:modelId"`, or `"fallback:modelId"` when a
 * fallback chain answered (the provider is then the one the last `model_fallback` moved to).
 */
export function responseModel(recorded: string): string {
  if (recorded.startsWith(FALLBACK)) return recorded.slice(FALLBACK.length);
  const colon = recorded.indexOf(":");
  return colon === -1 ? recorded : recorded.slice(colon + 1);
}

/** The request settings the conventions name, when the request recorded them. */
export function settingsAttributes(settings: RecordedSettings | undefined): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (settings === undefined) return attributes;
  if (settings.temperature !== undefined) attributes["gen_ai.request.temperature"] = settings.temperature;
  if (settings.topP !== undefined) attributes["gen_ai.request.top_p"] = settings.topP;
  if (settings.maxOutputTokens !== undefined) attributes["gen_ai.request.max_tokens"] = settings.maxOutputTokens;
  if (settings.stopSequences !== undefined) attributes["gen_ai.request.stop_sequences"] = [...settings.stopSequences];
  if (settings.seed !== undefined) attributes["gen_ai.request.seed"] = settings.seed;
  return attributes;
}

/**
 * Token counts as the conventions name them. Cached and cache-write tokens are parts of the input
 * tokens, reasoning tokens part of the output tokens (as the providers report them).
 */
export function usageAttributes(usage: ModelUsage): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (usage.inputTokens !== undefined) attributes["gen_ai.usage.input_tokens"] = usage.inputTokens;
  if (usage.outputTokens !== undefined) attributes["gen_ai.usage.output_tokens"] = usage.outputTokens;
  if (usage.cachedInputTokens !== undefined) {
    attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cachedInputTokens;
  }
  if (usage.cacheWriteTokens !== undefined) {
    attributes["gen_ai.usage.cache_creation.input_tokens"] = usage.cacheWriteTokens;
  }
  if (usage.reasoningTokens !== undefined) {
    attributes["gen_ai.usage.reasoning.output_tokens"] = usage.reasoningTokens;
  }
  return attributes;
}

/**
 * What the response cost as its `model_response` recorded it (the conventions name no cost
 * attribute): `nous.cost.usd` when the model had a known price, and the price source.
 */
export function costAttributes(cost: RecordedCost | undefined): SpanAttributes {
  if (cost === undefined) return {};
  return { "nous.cost.source": cost.source, ...(cost.usd === undefined ? {} : { "nous.cost.usd": cost.usd }) };
}

/** A Nous finish reason as the conventions spell it ("tool-calls" → "tool_call"). */
export function finishReason(reason: string): string {
  switch (reason) {
    case "tool-calls":
      return "tool_call";
    case "content-filter":
      return "content_filter";
    default:
      return reason;
  }
}
