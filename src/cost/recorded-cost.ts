/**
 * What one model response cost, as its `model_response` event records it. The parts are disjoint
 * and add up to `usd`: uncached input, cache reads, cache writes, output other than reasoning, and
 * reasoning (output tokens, at the output price unless the model has its own reasoning price).
 * Without `usd` the model has no known price: `source` still says where it was looked up.
 *
 * @example
 * const cost: RecordedCost = {
 *   source: "genai-prices@0.1.8", priceModel: "openai:gpt-4o",
 *   usd: 0.007, inputUsd: 0.0015, cacheReadUsd: 0.0005, outputUsd: 0.005,
 * };
 */
export interface RecordedCost {
  /** `genai-prices@<version>` for the bundled price data, `custom` for the agent's own `pricing`. */
  readonly source: string;
  /** The whole response in USD; absent when the model has no known price. */
  readonly usd?: number;
  /** Input tokens not read from or written to the cache. */
  readonly inputUsd?: number;
  readonly cacheReadUsd?: number;
  readonly cacheWriteUsd?: number;
  /** Output tokens other than reasoning. */
  readonly outputUsd?: number;
  readonly reasoningUsd?: number;
  /** The price-table row that priced it (`"provider:model"`), when the source names one. */
  readonly priceModel?: string;
}

/**
 * The cost of a run or a session in USD. `partial` when some model responses had no known price
 * (or were not priced at all: logs written before costs were recorded, `pricing: false`); `usd`
 * then covers the others.
 *
 * @example
 * result.cost; // { usd: 0.0123, partial: false }
 */
export interface RunCost {
  readonly usd: number;
  readonly partial: boolean;
}

/**
 * The cost of a run that made no request.
 *
 * @example
 * [result.cost, other.cost].reduce(addCost, noCost);
 */
export const noCost: RunCost = Object.freeze({ usd: 0, partial: false });

/**
 * The sum of two costs: partial when either is.
 *
 * @example
 * addCost({ usd: 0.01, partial: false }, { usd: 0, partial: true }); // { usd: 0.01, partial: true }
 */
export function addCost(left: RunCost, right: RunCost): RunCost {
  return { usd: roundUsd(left.usd + right.usd), partial: left.partial || right.partial };
}

/** USD rounded to 1e-12 (below any price's precision): sums and differences of floats stay readable. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e12) / 1e12;
}
