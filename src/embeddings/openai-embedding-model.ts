import type { ProviderSettings } from "../models/provider-settings.js";
import { type OpenAICompatibleProvider, openAICompatiblePresets } from "../models/providers/openai-compatible.js";
import { type Connection, type ConnectionSpec, resolveConnection } from "../models/providers/shared/connection.js";
import { postJson, readJson, requestIdOf, scopeSignal, withRequestId } from "../models/providers/shared/http.js";
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingModel,
  type EmbeddingRequest,
  type EmbeddingResponse,
} from "./embedding-model.js";
import { buildOpenAIEmbeddingBody, type EmbeddingEncoding, parseOpenAIEmbeddings } from "./openai-embedding-wire.js";

/** Settings of an OpenAI-format embedding model: the common ones plus the batch size and vector encoding. */
export interface OpenAIEmbeddingSettings extends ProviderSettings {
  /** The most values per request. Default 2048, OpenAI's limit. */
  maxBatchSize?: number;
  /** How vectors travel. Default `"base64"` for OpenAI, `"float"` for the compatible servers (not all know base64). */
  encodingFormat?: EmbeddingEncoding;
}

/** OpenAI's own embeddings endpoint, with the environment variables of its chat models. */
const openAIEmbeddingSpec: ConnectionSpec = {
  provider: "openai",
  defaultBaseURL: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  baseURLEnv: "OPENAI_BASE_URL",
  requiresApiKey: true,
};

/** OpenAI's limit of values per embeddings request. */
const OPENAI_MAX_BATCH_SIZE = 2048;

class OpenAIEmbeddingModel implements EmbeddingModel {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly provider: string;
  readonly maxBatchSize: number;
  readonly #connection: Connection;
  readonly #encoding: EmbeddingEncoding;

  constructor(
    readonly modelId: string,
    connection: Connection,
    settings: OpenAIEmbeddingSettings,
    defaultEncoding: EmbeddingEncoding,
  ) {
    this.provider = connection.provider;
    this.maxBatchSize = settings.maxBatchSize ?? OPENAI_MAX_BATCH_SIZE;
    this.#connection = connection;
    this.#encoding = settings.encodingFormat ?? defaultEncoding;
  }

  async doEmbed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
    const scope = scopeSignal(request.signal);
    try {
      const response = await postJson({
        provider: this.provider,
        url: `${this.#connection.baseURL}/embeddings`,
        headers: this.#connection.headers(),
        body: buildOpenAIEmbeddingBody(this.provider, this.modelId, request, this.#encoding),
        ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        ...(this.#connection.fetch === undefined ? {} : { fetch: this.#connection.fetch }),
      });
      const body = await readJson(response, this.provider, scope.signal);
      return withRequestId(parseOpenAIEmbeddings(this.provider, body, request.values.length), requestIdOf(response));
    } finally {
      scope.release();
    }
  }
}

/**
 * An OpenAI embedding model (`POST {baseURL}/embeddings`, vectors as base64 float32, decoded).
 * Reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` like the chat models; a missing key is reported
 * when a request is made. `providerOptions.openai` fields (such as `user`) are added to the body.
 *
 * @example
 * const model = createOpenAIEmbeddingModel("text-embedding-3-small");
 * const { embedding } = await embed({ model, value: "hello", dimensions: 512 });
 */
export function createOpenAIEmbeddingModel(modelId: string, settings: OpenAIEmbeddingSettings = {}): EmbeddingModel {
  return new OpenAIEmbeddingModel(modelId, resolveConnection(openAIEmbeddingSpec, settings), settings, "base64");
}

/**
 * An embedding model of an OpenAI-compatible provider (Ollama, LM Studio, vLLM, Mistral, Together,
 * …), through the OpenAI wire format at the preset's base URL with its environment variables
 * (`<PROVIDER>_API_KEY`, `<PROVIDER>_BASE_URL`). Vectors travel as JSON numbers unless
 * `encodingFormat: "base64"` is set. Options for the server go in `providerOptions[provider]`.
 *
 * @example
 * const local = createOpenAICompatibleEmbeddingModel("ollama", "nomic-embed-text");
 * const mine = createOpenAICompatibleEmbeddingModel("custom", "bge-m3", { baseURL: "http://10.0.0.5:9000/v1" });
 */
export function createOpenAICompatibleEmbeddingModel(
  provider: OpenAICompatibleProvider,
  modelId: string,
  settings: OpenAIEmbeddingSettings = {},
): EmbeddingModel {
  const connection = resolveConnection(openAICompatiblePresets[provider], settings);
  return new OpenAIEmbeddingModel(modelId, connection, settings, "float");
}
