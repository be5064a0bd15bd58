import type { ModelUsage } from "../models/model.js";
import { loadPriceSource, PRICE_SOURCE, type PriceModule } from "./price-source.js";
import { type RecordedCost, roundUsd } from "./recorded-cost.js";

/**
 * A model's prices in USD per million tokens, for `AgentOptions.pricing`. Cache reads and writes
 * default to the input price, reasoning to the output price.
 *
 * @example
 * const negotiated: ModelRates = { input: 2, output: 8, cacheRead: 0.5 };
 */
export interface ModelRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly reasoning?: number;
}

/**
 * How an agent prices its model responses (`AgentOptions.pricing`). By default, from the bundled
 * `@pydantic/genai-prices` data. A table (keyed by `"provider:model"` as `model_response` records
 * it, or by the bare model id) or a function gives your own prices for the models it knows; the
 * others are priced from the bundled data. `false` records no cost at all.
 *
 * @example
 * new Agent({ model, pricing: { "custom:our-llama": { input: 0.1, output: 0.1 } } });
 */
export type Pricing = false | Readonly<Record<string, ModelRates>> | ((model: string) => ModelRates | undefined);

/**
 * `cost.source` of a response priced by the agent's own `pricing`.
 *
 * @example
 * event.data.cost?.source === CUSTOM_PRICE_SOURCE; // priced at your rates
 */
export const CUSTOM_PRICE_SOURCE = "custom";

/**
 * Our provider names (the part of `"provider:model"` before the colon; an AI SDK provider's part
 * before its first dot) as the price data names them; `null` for local servers and test models,
 * which have no price. Any other name is looked up as it is.
 */
const PRICE_PROVIDERS: Readonly<Record<string, string | null>> = {
  openai: "openai",
  "openai-chat": "openai",
  anthropic: "anthropic",
  gemini: "google",
  google: "google",
  xai: "x-ai",
  test: null,
  offline: null,
  scripted: null,
  ollama: null,
  lmstudio: null,
  vllm: null,
  sglang: null,
  llamacpp: null,
  custom: null,
};

/**
 * What one response of `model` (`"provider:model"`) cost: with the agent's own `pricing` when it
 * knows the model, else from the bundled price data (loaded on first use: the result is a promise
 * only then). `undefined` when `pricing` is `false`.
 *
 * @example
 * await priceResponse("openai:gpt-4o", { inputTokens: 1000, outputTokens: 500 });
 * // { source: "genai-prices@0.1.8", usd: 0.0075, inputUsd: 0.0025, outputUsd: 0.005, priceModel: "openai:gpt-4o" }
 */
export function priceResponse(
  model: string,
  usage: ModelUsage,
  options: { readonly pricing?: Pricing; readonly at?: Date } = {},
): RecordedCost | undefined | Promise<RecordedCost> {
  const { pricing, at } = options;
  if (pricing === false) return undefined;
  const rates = pricing === undefined ? undefined : customRates(pricing, model);
  if (rates !== undefined) return costFromRates(rates, usage);
  if (priceProvider(model) === null) return { source: PRICE_SOURCE };
  const source = loadPriceSource();
  if (source instanceof Promise) {
    // A price source that cannot load leaves the response unpriced; it never fails the run.
    return source.then(
      (module) => priceWithSource(module, model, usage, at),
      () => ({ source: PRICE_SOURCE }),
    );
  }
  return priceWithSource(source, model, usage, at);
}

/**
 * The cost of a response from the bundled price data, with the price module already loaded (see
 * `loadPriceSource`); prices as they were at `at` (default now). A response whose usage the data
 * rejects (cache reads above the input tokens) has no price.
 */
export function priceWithSource(module: PriceModule, model: string, usage: ModelUsage, at?: Date): RecordedCost {
  const provider = priceProvider(model);
  if (provider === null) return { source: PRICE_SOURCE };
  const modelId = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  const tokens = sourceUsage(usage);
  let result: ReturnType<PriceModule["calcPrice"]>;
  try {
    result = module.calcPrice(tokens.usage, modelId, {
      ...(provider === undefined ? {} : { providerId: provider }),
      ...(at === undefined ? {} : { timestamp: at }),
    });
  } catch {
    return { source: PRICE_SOURCE };
  }
  if (result === null) return { source: PRICE_SOURCE };
  const rate = (key: string, fallback: string): number => {
    const price = result.model_price[key] ?? result.model_price[fallback];
    if (price === undefined) return 0;
    if (typeof price === "number") return price;
    let chosen = price.base;
    for (const tier of price.tiers) if (tokens.input > tier.start) chosen = tier.price;
    return chosen;
  };
  const cacheReadUsd = (tokens.cacheRead * rate("cache_read_mtok", "input_mtok")) / 1e6;
  const cacheWriteUsd = (tokens.cacheWrite * rate("cache_write_mtok", "input_mtok")) / 1e6;
  const reasoningUsd = (tokens.reasoning * rate("output_reasoning_mtok", "output_mtok")) / 1e6;
  return itemized(PRICE_SOURCE, `${result.provider.id}:${result.model.id}`, tokens, {
    input: result.input_price - cacheReadUsd - cacheWriteUsd,
    cacheRead: cacheReadUsd,
    cacheWrite: cacheWriteUsd,
    output: result.output_price - reasoningUsd,
    reasoning: reasoningUsd,
  });
}

/** The cost of a response at the given rates (USD per million tokens). */
export function costFromRates(rates: ModelRates, usage: ModelUsage): RecordedCost {
  const tokens = sourceUsage(usage);
  const perToken = (count: number, price: number): number => (count * price) / 1e6;
  return itemized(CUSTOM_PRICE_SOURCE, undefined, tokens, {
    input: perToken(Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite), rates.input),
    cacheRead: perToken(tokens.cacheRead, rates.cacheRead ?? rates.input),
    cacheWrite: perToken(tokens.cacheWrite, rates.cacheWrite ?? rates.input),
    output: perToken(Math.max(0, tokens.output - tokens.reasoning), rates.output),
    reasoning: perToken(tokens.reasoning, rates.reasoning ?? rates.output),
  });
}

interface Tokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
  /** The price data's usage: `input_tokens` is the whole prompt, the cache counts are part of it. */
  readonly usage: Record<string, number>;
}

/**
 * Our usage as the price data counts it. Every adapter fills `ModelUsage` the same way: the whole
 * prompt in `inputTokens` (cache reads and writes included — Anthropic's are added back), the
 * whole answer in `outputTokens` (reasoning included — Gemini's thoughts are added back); the
 * price data takes the same totals and prices the cache and reasoning parts out of them.
 */
function sourceUsage(usage: ModelUsage): Tokens {
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const reasoning = usage.reasoningTokens ?? 0;
  const input = usage.inputTokens ?? cacheRead + cacheWrite;
  const output = usage.outputTokens ?? reasoning;
  const counted: Record<string, number> = { input_tokens: input, output_tokens: output };
  if (cacheRead > 0) counted.cache_read_tokens = cacheRead;
  if (cacheWrite > 0) counted.cache_write_tokens = cacheWrite;
  if (reasoning > 0) counted.output_reasoning_tokens = reasoning;
  return { input, output, cacheRead, cacheWrite, reasoning, usage: counted };
}

function itemized(
  source: string,
  priceModel: string | undefined,
  tokens: Tokens,
  parts: { input: number; cacheRead: number; cacheWrite: number; output: number; reasoning: number },
): RecordedCost {
  const usd = parts.input + parts.cacheRead + parts.cacheWrite + parts.output + parts.reasoning;
  return {
    source,
    ...(priceModel === undefined ? {} : { priceModel }),
    usd: roundUsd(usd),
    inputUsd: roundUsd(parts.input),
    ...(tokens.cacheRead > 0 ? { cacheReadUsd: roundUsd(parts.cacheRead) } : {}),
    ...(tokens.cacheWrite > 0 ? { cacheWriteUsd: roundUsd(parts.cacheWrite) } : {}),
    outputUsd: roundUsd(parts.output),
    ...(tokens.reasoning > 0 ? { reasoningUsd: roundUsd(parts.reasoning) } : {}),
  };
}

/** The agent's own rates for `model`: by `"provider:model"`, then by the bare model id. */
function customRates(pricing: Exclude<Pricing, false>, model: string): ModelRates | undefined {
  if (typeof pricing === "function") return pricing(model);
  const bare = model.includes(":") ? model.slice(model.indexOf(":") + 1) : undefined;
  if (Object.hasOwn(pricing, model)) return pricing[model];
  return bare !== undefined && Object.hasOwn(pricing, bare) ? pricing[bare] : undefined;
}

/** The price data's provider id for `model`; `null` when it has no price; `undefined` when the model names no provider. */
function priceProvider(model: string): string | null | undefined {
  if (!model.includes(":")) return undefined;
  const name = model.slice(0, model.indexOf(":")).toLowerCase();
  const vendor = name.split(".")[0] ?? name;
  if (Object.hasOwn(PRICE_PROVIDERS, name)) return PRICE_PROVIDERS[name];
  return Object.hasOwn(PRICE_PROVIDERS, vendor) ? PRICE_PROVIDERS[vendor] : vendor;
}
