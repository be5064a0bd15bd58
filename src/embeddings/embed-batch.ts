import { EmbeddingCountMismatchError } from "../errors/embedding-errors.js";
import { type RetryPolicy, retryCall } from "../models/retry.js";
import type { EmbeddingModel, EmbeddingProviderOptions, EmbeddingResponse } from "./embedding-model.js";

/** What every batch of one `embed` or `embedMany` call shares. */
export interface EmbeddingBatchOptions {
  readonly dimensions?: number | undefined;
  readonly providerOptions?: EmbeddingProviderOptions | undefined;
  /** Retries of retryable provider errors (the `withRetry` defaults); `false` turns them off. */
  readonly retry?: RetryPolicy | false | undefined;
}

/**
 * One `doEmbed` call for checked values, retried like a chat request (rate limits, 5xx, network,
 * `retry-after` honoured), and its answer checked: exactly one vector per value, or
 * `EmbeddingCountMismatchError`, never vectors paired with the wrong texts.
 */
export async function embedBatch(
  model: EmbeddingModel,
  values: readonly string[],
  options: EmbeddingBatchOptions,
  signal: AbortSignal | undefined,
): Promise<EmbeddingResponse> {
  const request = {
    values,
    ...(signal === undefined ? {} : { signal }),
    ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
  };
  // A call already cancelled sends nothing.
  if (signal?.aborted) throw signal.reason;
  const call = () => model.doEmbed(request);
  const retry = options.retry ?? {};
  const response =
    retry === false
      ? await call()
      : await retryCall(call, { provider: model.provider, modelId: model.modelId, signal }, retry);
  const received = Array.isArray(response.embeddings) ? response.embeddings.length : 0;
  if (received !== values.length) {
    throw new EmbeddingCountMismatchError({ provider: model.provider, expected: values.length, received });
  }
  return response;
}
