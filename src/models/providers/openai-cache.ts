import type { ModelRequest } from "../model.js";
import { cacheHintsOn, cacheRetention, promptCacheKey } from "./shared/prompt-cache.js";

/**
 * The providers that are OpenAI's own endpoints (Responses and Chat Completions), where prompt
 * caching is automatic and `prompt_cache_key` costs nothing: hints go out unless turned off. Other
 * Chat Completions servers get them only with `cache: { enabled: true }` (some reject unknown fields).
 */
const FREE_CACHE_PROVIDERS = new Set(["openai", "openai-chat"]);

/**
 * The cache fields of an OpenAI body (Chat Completions and Responses alike): `prompt_cache_key`
 * (see `promptCacheKey`) and, for `retention: "long"`, `prompt_cache_retention: "24h"`. Keys the
 * caller put in `providerOptions` are spread after these and win.
 *
 * @example
 * openAICacheFields({ messages: [], tools: [], settings: { cache: { key: "user-42" } } }, "openai");
 * // { prompt_cache_key: "user-42" }
 */
export function openAICacheFields(request: ModelRequest, provider: string): Record<string, unknown> {
  if (!cacheHintsOn(request, FREE_CACHE_PROVIDERS.has(provider))) return {};
  const fields: Record<string, unknown> = { prompt_cache_key: promptCacheKey(request) };
  if (cacheRetention(request.settings.cache) === "long") fields.prompt_cache_retention = "24h";
  return fields;
}
