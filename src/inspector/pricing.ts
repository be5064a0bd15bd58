/**
 * List prices of a few well-known models, in USD per million tokens, used by the inspector to show
 * what a session cost. Prices change: these are the providers' published list prices when this
 * table was written (standard tier, no batch or cache discounts). A model that is not listed shows
 * no cost rather than a guess.
 */
export interface ModelPrice {
  /** USD per million input tokens. */
  readonly input: number;
  /** USD per million output tokens. */
  readonly output: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
});

/** The table keyed with dots as dashes, so `claude-sonnet-4.5` and `gpt-4-1` find their rows. */
const NORMALIZED = new Map(Object.entries(MODEL_PRICES).map(([name, price]) => [name.replaceAll(".", "-"), price]));

/** A dated or aliased snapshot of a listed model: `gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`, `…-latest`. */
const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The price of a model, from `"provider:model"`, a bare model id, or a router's `vendor/model`;
 * undefined when the model is not in the table.
 *
 * @example
 * priceOf("openai:gpt-4o-2024-08-06"); // { input: 2.5, output: 10 }
 * priceOf("ollama:qwen3:8b");          // undefined
 */
export function priceOf(model: string | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const afterProvider = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  const id = (afterProvider.split("/").at(-1) ?? afterProvider).toLowerCase().replaceAll(".", "-");
  const exact = NORMALIZED.get(id);
  if (exact) return exact;
  for (const [key, price] of NORMALIZED) {
    if (id.startsWith(key) && SNAPSHOT_SUFFIX.test(id.slice(key.length))) return price;
  }
  return undefined;
}

/** The cost in USD of the given tokens on a model, or undefined when the model has no known price. */
export function costOf(
  model: string | undefined,
  usage: { readonly inputTokens?: number; readonly outputTokens?: number },
): number | undefined {
  const price = priceOf(model);
  if (price === undefined) return undefined;
  return ((usage.inputTokens ?? 0) * price.input + (usage.outputTokens ?? 0) * price.output) / 1_000_000;
}
