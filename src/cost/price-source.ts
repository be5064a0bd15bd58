/**
 * The maintained price data every cost is computed from: `@pydantic/genai-prices`, whose prices
 * are bundled in the package (Nous never calls its `updatePrices`, so nothing is downloaded). The
 * module is large (~830 KB), so it is loaded on the first priced response, once.
 */

/**
 * The price source, as `model_response` records it in `cost.source`. The dependency is pinned to
 * this exact version in package.json (the package does not export its package.json, so the
 * version cannot be read at runtime); `price-source.test.ts` checks it against the installed one.
 *
 * @example
 * event.data.cost?.source === PRICE_SOURCE; // "genai-prices@0.1.8"
 */
export const PRICE_SOURCE = "genai-prices@0.1.8";

/** The loaded price module (what `loadPriceSource` resolves to). */
export type PriceModule = typeof import("@pydantic/genai-prices");

let loaded: PriceModule | undefined;
let loading: Promise<PriceModule> | undefined;

/**
 * The price module: itself once loaded (no await on the hot path), else the promise of it.
 *
 * @example
 * const prices = await loadPriceSource();
 */
export function loadPriceSource(): PriceModule | Promise<PriceModule> {
  if (loaded !== undefined) return loaded;
  loading ??= import("@pydantic/genai-prices").then(
    (module) => {
      loaded = module;
      return module;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The price module if it is already loaded (the inspector loads it before its sync analysis). */
export function loadedPriceSource(): PriceModule | undefined {
  return loaded;
}
