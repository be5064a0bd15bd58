import type { EmbeddingBatchOptions } from "./embed-batch.js";
import { embedBatch } from "./embed-batch.js";
import { checkDimensions, checkEmbeddingValues } from "./embedding-input.js";
import type { EmbeddingModel, EmbeddingUsage } from "./embedding-model.js";
import { embeddingModel } from "./embedding-registry.js";

/** Options of `embed`. */
export interface EmbedOptions extends EmbeddingBatchOptions {
  /** The model, or a `"provider:model"` string (`"openai:text-embedding-3-small"`). */
  readonly model: EmbeddingModel | string;
  /** The text to embed: a non-empty string. */
  readonly value: string;
  /** Cancels the request (and any retry wait); the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What `embed` returns. */
export interface EmbedResult {
  readonly embedding: number[];
  readonly usage: EmbeddingUsage;
  readonly responseId?: string;
  readonly requestId?: string;
}

/**
 * The embedding of one text. The value is checked first (a non-string or the empty string is an
 * `EmbeddingInputError` with index 0, and nothing is sent); retryable provider errors are retried with the
 * `withRetry` defaults (`retry: false` turns that off, a `RetryPolicy` tunes it).
 *
 * @example
 * const { embedding, usage } = await embed({ model: "openai:text-embedding-3-small", value: "sunny day at the beach" });
 */
export async function embed(options: EmbedOptions): Promise<EmbedResult> {
  const [value] = checkEmbeddingValues([options.value]) as [string];
  checkDimensions(options.dimensions);
  const model = embeddingModel(options.model);
  const response = await embedBatch(model, [value], options, options.signal);
  const [embedding] = response.embeddings as [number[]];
  return {
    embedding,
    usage: response.usage,
    ...(response.responseId === undefined ? {} : { responseId: response.responseId }),
    ...(response.requestId === undefined ? {} : { requestId: response.requestId }),
  };
}
