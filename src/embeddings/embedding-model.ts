/** The version of the embedding contract. An implementation names the version it was written against. */
export const EMBEDDING_SPECIFICATION_VERSION = "nous-embedding-v1";

/** Options for one provider, keyed by provider name (`{ gemini: { taskType: "RETRIEVAL_QUERY" } }`). */
export type EmbeddingProviderOptions = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** One call to an embedding model: at most `maxBatchSize` values, already checked by `embedMany`. */
export interface EmbeddingRequest {
  /** The texts to embed, each a non-empty string. */
  readonly values: readonly string[];
  readonly signal?: AbortSignal;
  /** The length of the vectors wanted, for models that can shorten theirs (OpenAI `text-embedding-3-*`, Gemini). */
  readonly dimensions?: number;
  /** Vendor-only options, keyed by provider name; each adapter reads its own key. */
  readonly providerOptions?: EmbeddingProviderOptions;
}

/** Token counts an embedding provider reported; left out when it reported none. */
export interface EmbeddingUsage {
  readonly inputTokens?: number;
}

/** A model's answer to one `doEmbed` call. */
export interface EmbeddingResponse {
  /** One vector per value, in the order of `request.values`, as many as there were values. */
  readonly embeddings: number[][];
  readonly usage: EmbeddingUsage;
  /** The provider's id of the response, when its body carries one. */
  readonly responseId?: string;
  /** The provider's id of the HTTP request (`x-request-id`), when it sent one. */
  readonly requestId?: string;
}

/**
 * A text embedding model: turns texts into vectors. Providers implement `doEmbed` for one batch of
 * at most `maxBatchSize` values; applications call `embed` and `embedMany`, which check the input,
 * split it into batches, run them in parallel within a bound, retry and check the answer. The `do`
 * prefix marks the method the library calls, not the application.
 *
 * @example
 * const model: EmbeddingModel = {
 *   specificationVersion: "nous-embedding-v1", provider: "letters", modelId: "count", maxBatchSize: 100,
 *   async doEmbed({ values }) { return { embeddings: values.map((value) => [value.length]), usage: {} }; },
 * };
 * const { embedding } = await embed({ model, value: "hello" }); // [5]
 */
export interface EmbeddingModel {
  readonly specificationVersion: typeof EMBEDDING_SPECIFICATION_VERSION;
  /** The provider's name, as in "provider:model". */
  readonly provider: string;
  readonly modelId: string;
  /** The most values one `doEmbed` call accepts (OpenAI 2048, Gemini 100). */
  readonly maxBatchSize: number;
  doEmbed(request: EmbeddingRequest): Promise<EmbeddingResponse>;
}
