import type { ModelRequest } from "../model.js";
import { cacheHintsOn, cacheRetention } from "./shared/prompt-cache.js";

type Block = Record<string, unknown>;

/** The Messages API allows at most this many `cache_control` breakpoints in one request. */
const MAX_BREAKPOINTS = 4;

/** Blocks the API does not let carry `cache_control` (thinking is cached as part of its turn). */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

/**
 * Adds Anthropic's cache breakpoints (`cache_control: { type: "ephemeral" }`, with `ttl: "1h"` for
 * `retention: "long"`) at the end of the request's immutable prefix, in the API's prefix order:
 * the last tool definition, the system prompt (then sent as one text block), and the last block of
 * the history before the new turn (the last turn of `messages`, usually the user's message or the
 * tool results), which the next request of the run reads back. Off unless `cache.enabled` is true:
 * a cache write costs 1.25× (5 minutes) or 2× (1 hour) the input price, a read 0.1×. Breakpoints
 * the body already carries (e.g. in `providerOptions.anthropic.tools`) count against the limit of 4.
 * Changes `body` in place, copying every object it marks.
 *
 * @example
 * applyAnthropicCache(body, { ...request, settings: { cache: { enabled: true } } });
 * body.system; // [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]
 */
export function applyAnthropicCache(body: Record<string, unknown>, request: ModelRequest): void {
  if (!cacheHintsOn(request, false)) return;
  const marker: Block = { type: "ephemeral" };
  if (cacheRetention(request.settings.cache) === "long") marker.ttl = "1h";
  let budget = MAX_BREAKPOINTS - countBreakpoints(body);
  const tools = body.tools;
  if (Array.isArray(tools) && tools.length > 0 && budget > 0) {
    const last = tools.at(-1) as unknown;
    if (isBlock(last) && last.cache_control === undefined) {
      body.tools = [...tools.slice(0, -1), { ...last, cache_control: marker }];
      budget--;
    }
  }
  if (typeof body.system === "string" && body.system !== "" && budget > 0) {
    body.system = [{ type: "text", text: body.system, cache_control: marker }];
    budget--;
  }
  if (budget > 0) markHistory(body.messages, marker);
}

/** Marks the last markable block before the last turn (the new one). */
function markHistory(messages: unknown, marker: Block): void {
  if (!Array.isArray(messages)) return;
  for (let turn = messages.length - 2; turn >= 0; turn--) {
    const message = messages[turn] as { content?: unknown };
    const content = message.content;
    if (!Array.isArray(content)) continue;
    for (let index = content.length - 1; index >= 0; index--) {
      const block = content[index] as unknown;
      if (!isBlock(block) || UNMARKABLE.has(String(block.type))) continue;
      if (block.cache_control === undefined) {
        const marked = [...content];
        marked[index] = { ...block, cache_control: marker };
        messages[turn] = { ...message, content: marked };
      }
      return;
    }
  }
}

function countBreakpoints(body: Record<string, unknown>): number {
  let count = 0;
  const visit = (items: unknown): void => {
    if (!Array.isArray(items)) return;
    for (const item of items) {
      if (!isBlock(item)) continue;
      if (item.cache_control !== undefined) count++;
      if (Array.isArray(item.content)) visit(item.content);
    }
  };
  visit(body.tools);
  visit(body.system);
  visit(body.messages);
  return count;
}

function isBlock(value: unknown): value is Block {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
