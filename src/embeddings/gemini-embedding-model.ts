import type { ProviderSettings } from "../models/provider-settings.js";
import { geminiEndpoint, geminiModelResource } from "../models/providers/shared/gemini-endpoint.js";
import { readJson, requestIdOf, scopeSignal, withRequestId } from "../models/providers/shared/http.js";
import { lazyModule } from "../models/providers/shared/lazy-module.js";
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingModel,
  type EmbeddingRequest,
  type EmbeddingResponse,
} from "./embedding-model.js";
import {
  buildBatchEmbedBody,
  buildEmbedContentRequest,
  parseBatchEmbedContents,
  parseEmbedContent,
} from "./gemini-embedding-wire.js";

const PROVIDER = "gemini";

/** Google's error classification (status, reasons, `RetryInfo`): loaded by the first request. */
const errorCode = lazyModule(() => import("../models/providers/gemini-errors.js"));

/** The Gemini API's limit of requests per `batchEmbedContents` call. */
const GEMINI_MAX_BATCH_SIZE = 100;

class GeminiEmbeddingModel implements EmbeddingModel {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly provider = PROVIDER;
  readonly maxBatchSize = GEMINI_MAX_BATCH_SIZE;
  readonly #settings: ProviderSettings;

  constructor(
    readonly modelId: string,
    settings: ProviderSettings,
  ) {
    this.#settings = settings;
  }

  async doEmbed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
    const { postGemini } = errorCode.loaded ?? (await errorCode.load());
    const { baseURL, headers } = geminiEndpoint(this.#settings);
    const model = geminiModelResource(this.modelId);
    const single = request.values.length === 1;
    const scope = scopeSignal(request.signal);
    try {
      const response = await postGemini({
        provider: PROVIDER,
        url: `${baseURL}/v1beta/${model}:${single ? "embedContent" : "batchEmbedContents"}`,
        headers,
        body: single
          ? buildEmbedContentRequest(request.values[0] ?? "", request, undefined)
          : buildBatchEmbedBody(request, model),
        ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        ...(this.#settings.fetch === undefined ? {} : { fetch: this.#settings.fetch }),
      });
      const body = await readJson(response, PROVIDER, scope.signal);
      const embeddings = single ? parseEmbedContent(body) : parseBatchEmbedContents(body, request.values.length);
      const answer: EmbeddingResponse = { embeddings, usage: {} };
      return withRequestId(answer, requestIdOf(response));
    } finally {
      scope.release();
    }
  }
}

/**
 * A Gemini API embedding model: one value through `POST {baseURL}/v1beta/models/{model}:embedContent`,
 * several through `:batchEmbedContents` (at most 100 a request). `dimensions` becomes
 * `outputDimensionality`; `providerOptions.gemini.taskType` (`"RETRIEVAL_QUERY"`,
 * `"RETRIEVAL_DOCUMENT"`, `"SEMANTIC_SIMILARITY"`, …) and `title` are sent with every value. Reads
 * `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) and `GEMINI_BASE_URL` when a request is made. The API
 * reports no token usage for embeddings.
 *
 * @example
 * const model = createGeminiEmbeddingModel("gemini-embedding-001");
 * const { embeddings } = await embedMany({ model, values, providerOptions: { gemini: { taskType: "RETRIEVAL_DOCUMENT" } } });
 */
export function createGeminiEmbeddingModel(modelId: string, settings: ProviderSettings = {}): EmbeddingModel {
  return new GeminiEmbeddingModel(modelId, settings);
}
