import { type EmbeddingBatchOptions, embedBatch } from "./embed-batch.js";
import { checkDimensions, checkEmbeddingValues, checkParallelCalls } from "./embedding-input.js";
import type { EmbeddingModel, EmbeddingResponse, EmbeddingUsage } from "./embedding-model.js";
import { embeddingModel } from "./embedding-registry.js";

/** `embedMany`'s default bound on requests in flight at once. */
export const DEFAULT_MAX_PARALLEL_CALLS = 4;

/** Options of `embedMany`. */
export interface EmbedManyOptions extends EmbeddingBatchOptions {
  /** The model, or a `"provider:model"` string (`"gemini:gemini-embedding-001"`). */
  readonly model: EmbeddingModel | string;
  /** The texts to embed, each a non-empty string. */
  readonly values: readonly string[];
  /** Requests in flight at once (default 4); `Infinity` sends every batch at once. */
  readonly maxParallelCalls?: number;
  /** Cancels every request in flight and every retry wait; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** One request `embedMany` made, in batch order. */
export interface EmbeddingBatchInfo {
  /** How many values the batch carried. */
  readonly size: number;
  readonly usage: EmbeddingUsage;
  readonly responseId?: string;
  readonly requestId?: string;
}

/** What `embedMany` returns. */
export interface EmbedManyResult {
  /** One vector per value, in the order of `values`. */
  readonly embeddings: number[][];
  /** The batches' usage summed; `inputTokens` only when every batch reported it. */
  readonly usage: EmbeddingUsage;
  readonly batches: readonly EmbeddingBatchInfo[];
}

/**
 * The embeddings of many texts, in input order. Every value is checked before anything is sent
 * (`EmbeddingInputError` names the first bad one); the values are cut into batches of the model's
 * `maxBatchSize`, sent at most `maxParallelCalls` at a time, each retried like a chat request.
 * An empty list returns `[]` without a request. The first batch to fail cancels the others in
 * flight and its error is thrown; no partial result is returned.
 *
 * @example
 * const { embeddings, usage } = await embedMany({
 *   model: "openai:text-embedding-3-small",
 *   values: ["sunny day at the beach", "rainy afternoon in the city"],
 * });
 */
export async function embedMany(options: EmbedManyOptions): Promise<EmbedManyResult> {
  const values = checkEmbeddingValues(options.values);
  checkDimensions(options.dimensions);
  const parallel = checkParallelCalls(options.maxParallelCalls ?? DEFAULT_MAX_PARALLEL_CALLS);
  const model = embeddingModel(options.model);
  if (values.length === 0) return { embeddings: [], usage: {}, batches: [] };
  const batches = cutIntoBatches(values, model.maxBatchSize);
  const responses =
    batches.length === 1
      ? [await embedBatch(model, values, options, options.signal)]
      : await runBounded(batches, parallel, options.signal, (batch, signal) =>
          embedBatch(model, batch, options, signal),
        );
  return {
    embeddings: responses.flatMap((response) => response.embeddings),
    usage: sumUsage(responses),
    batches: responses.map((response, index) => batchInfo(response, batches[index]?.length ?? 0)),
  };
}

function cutIntoBatches(values: readonly string[], maxBatchSize: number): (readonly string[])[] {
  const size = Number.isInteger(maxBatchSize) && maxBatchSize > 0 ? maxBatchSize : 1;
  const batches: (readonly string[])[] = [];
  for (let start = 0; start < values.length; start += size) batches.push(values.slice(start, start + size));
  return batches;
}

/**
 * Runs `task` over the batches with at most `limit` in flight, results in batch order. The first
 * failure aborts the tasks still running (through the signal they are given) and is thrown.
 */
async function runBounded(
  batches: readonly (readonly string[])[],
  limit: number,
  parent: AbortSignal | undefined,
  task: (batch: readonly string[], signal: AbortSignal) => Promise<EmbeddingResponse>,
): Promise<EmbeddingResponse[]> {
  if (parent?.aborted) throw parent.reason;
  const controller = new AbortController();
  const forward = () => controller.abort(parent?.reason);
  parent?.addEventListener("abort", forward, { once: true });
  const results: EmbeddingResponse[] = new Array(batches.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < batches.length && !controller.signal.aborted) {
      const index = next++;
      results[index] = await task(batches[index] ?? [], controller.signal);
    }
  };
  try {
    const workers = Array.from({ length: Math.min(limit, batches.length) }, () =>
      worker().catch((error: unknown) => {
        controller.abort(error);
        throw error;
      }),
    );
    await Promise.all(workers);
    // A worker that saw the abort stopped quietly: the caller's abort is the call's outcome.
    if (parent?.aborted) throw parent.reason;
    return results;
  } finally {
    parent?.removeEventListener("abort", forward);
  }
}

function sumUsage(responses: readonly EmbeddingResponse[]): EmbeddingUsage {
  let inputTokens = 0;
  for (const response of responses) {
    if (response.usage.inputTokens === undefined) return {};
    inputTokens += response.usage.inputTokens;
  }
  return { inputTokens };
}

function batchInfo(response: EmbeddingResponse, size: number): EmbeddingBatchInfo {
  return {
    size,
    usage: response.usage,
    ...(response.responseId === undefined ? {} : { responseId: response.responseId }),
    ...(response.requestId === undefined ? {} : { requestId: response.requestId }),
  };
}
