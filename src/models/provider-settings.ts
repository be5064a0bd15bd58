import type { Model } from "./model.js";

/** Options every provider factory accepts; each also reads its own environment variables. */
export interface ProviderSettings {
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
  /** Where environment variables are read from; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Makes a model of one provider from the model id (the part after the colon). */
export type ModelFactory = (modelId: string, settings?: ProviderSettings) => Model;
