import { sha256Hex } from "../../../platform/sha256.js";
import { canonicalJson } from "../../../session/canonical-json.js";
import type { ModelRequest, PromptCacheSettings } from "../../model.js";

/**
 * Whether a request gets cache hints: `settings.cache.enabled` when given, else the provider's
 * default (`onByDefault`: true where caching costs nothing extra).
 */
export function cacheHintsOn(request: ModelRequest, onByDefault: boolean): boolean {
  return request.settings.cache?.enabled ?? onByDefault;
}

/** Whether caching is switched off outright (`cache: { enabled: false }`): no cache field is sent. */
export function cacheOff(request: ModelRequest): boolean {
  return request.settings.cache?.enabled === false;
}

/** The request's retention choice (`"short"` unless `"long"` was asked for). */
export function cacheRetention(cache: PromptCacheSettings | undefined): "short" | "long" {
  return cache?.retention === "long" ? "long" : "short";
}

// Agents reuse one frozen tools array from step to step: its key is hashed once per instructions text.
const keys = new WeakMap<ModelRequest["tools"], { instructions: string | undefined; key: string }>();

/**
 * The cache key of a request: `settings.cache.key` when given, else `nous-` and the first 32 hex
 * digits of the SHA-256 of the instructions and tool definitions (canonical JSON). The default is
 * the same for every request of the same agent definition — exactly the prefix a cache can share —
 * and is a function of what the log records, so a rebuilt request carries the same key.
 *
 * @example
 * promptCacheKey({ instructions: "Be brief.", messages: [], tools: [], settings: {} }); // "nous-5b0d…"
 */
export function promptCacheKey(request: ModelRequest): string {
  const given = request.settings.cache?.key;
  if (given !== undefined && given !== "") return given;
  const memo = keys.get(request.tools);
  if (memo !== undefined && memo.instructions === request.instructions) return memo.key;
  const prefix = canonicalJson({ instructions: request.instructions ?? null, tools: request.tools });
  const key = `nous-${sha256Hex(prefix).slice(0, 32)}`;
  keys.set(request.tools, { instructions: request.instructions, key });
  return key;
}
