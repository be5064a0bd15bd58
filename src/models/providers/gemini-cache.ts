import type { ModelRequest } from "../model.js";
import { cacheOff } from "./shared/prompt-cache.js";

/** What a request may not carry next to `cachedContent`: the cache holds them (the API answers 400). */
const HELD_BY_CACHE = ["systemInstruction", "tools", "toolConfig"] as const;

/**
 * Points a Gemini body at an explicit cache: `cachedContent` from `settings.cache.cachedContent`
 * (the name of a cache you created, `cachedContents/…`), and — since the API rejects a request that
 * sets them next to a cache — without `systemInstruction`, `tools` and `toolConfig`, which the cache
 * must then hold. Without a cache name nothing changes: Gemini 2.5 and later cache implicitly, for
 * free, and report the hits as `cachedContentTokenCount`. A `cachedContent` given in
 * `providerOptions.gemini` is treated the same way; `cache: { enabled: false }` removes it.
 * Changes `body` in place.
 *
 * @example
 * applyGeminiCache(body, { ...request, settings: { cache: { cachedContent: "cachedContents/abc" } } });
 * body.cachedContent; // "cachedContents/abc"
 */
export function applyGeminiCache(body: Record<string, unknown>, request: ModelRequest): void {
  if (cacheOff(request)) {
    delete body.cachedContent;
    return;
  }
  const name = request.settings.cache?.cachedContent;
  if (name !== undefined && name !== "") body.cachedContent = name;
  if (typeof body.cachedContent !== "string") return;
  for (const field of HELD_BY_CACHE) delete body[field];
}
