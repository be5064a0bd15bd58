import { StreamTruncatedError } from "../../errors/provider-error.js";
import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type WireTarget,
} from "../model.js";
import type { ProviderSettings } from "../provider-settings.js";
import type { MaxTokensField } from "./openai-chat-request.js";
import { type Connection, type ConnectionSpec, resolveConnection } from "./shared/connection.js";
import { postJson, readJson, readSseBatches, requestIdOf, scopeSignal, withRequestId } from "./shared/http.js";
import { lazyModule } from "./shared/lazy-module.js";

/** Request building and response parsing: loaded by the first request, not when the package is imported. */
const wireCode = lazyModule(() => import("./openai-chat-wire.js"));
type WireCode = Awaited<ReturnType<typeof wireCode.load>>;

/** How a Chat Completions endpoint is reached and which dialect details it expects. */
export interface OpenAIChatSpec extends ConnectionSpec {
  /** The output token limit field; OpenAI wants `max_completion_tokens`, most other servers `max_tokens`. */
  maxTokensField?: MaxTokensField;
  /** Whether the server can constrain output to a JSON schema (`response_format`). Default true. */
  nativeOutput?: boolean;
}

/** OpenAI's own Chat Completions endpoint. */
export const openAIChatSpec: OpenAIChatSpec = {
  provider: "openai-chat",
  defaultBaseURL: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  baseURLEnv: "OPENAI_BASE_URL",
  requiresApiKey: true,
  maxTokensField: "max_completion_tokens",
};

/**
 * A model served through the OpenAI Chat Completions API, by OpenAI or any compatible server.
 * Streams end with `data: [DONE]`; a stream without it is a `StreamTruncatedError`, whatever
 * `finish_reason` said. `reasoning_content` (DeepSeek, vLLM) and `reasoning` deltas become reasoning.
 *
 * @example
 * const model = createOpenAIChatModel("gpt-4o-mini", { apiKey: process.env.OPENAI_API_KEY });
 * const local = createOpenAIChatModel("llama3.2", { baseURL: "http://127.0.0.1:11434/v1" },
 *   { ...openAIChatSpec, provider: "ollama", requiresApiKey: false });
 */
export function createOpenAIChatModel(
  modelId: string,
  settings?: ProviderSettings,
  spec: OpenAIChatSpec = openAIChatSpec,
): Model {
  return new OpenAIChatModel(modelId, resolveConnection(spec, settings), spec);
}

class OpenAIChatModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly wire: WireTarget;
  readonly #connection: Connection;
  readonly #maxTokensField: MaxTokensField;

  constructor(modelId: string, connection: Connection, spec: OpenAIChatSpec) {
    this.provider = spec.provider;
    this.modelId = modelId;
    this.capabilities = { tools: true, nativeOutput: spec.nativeOutput ?? true };
    this.#connection = connection;
    this.#maxTokensField = spec.maxTokensField ?? "max_tokens";
    this.wire = {
      api: "openai-chat",
      modelId,
      options: { provider: spec.provider, maxTokensField: this.#maxTokensField },
    };
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const scope = scopeSignal(request.signal);
    try {
      const response = await this.#post(code, request, false, scope.signal);
      const answer = code.parseChatCompletion(this.provider, await readJson(response, this.provider, scope.signal));
      return withRequestId(answer, requestIdOf(response));
    } finally {
      scope.release();
    }
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const scope = scopeSignal(request.signal);
    try {
      const response = await this.#post(code, request, true, scope.signal);
      const assembler = new code.ChatStreamAssembler(this.provider);
      const requestId = requestIdOf(response);
      for await (const events of readSseBatches(response, this.provider, scope.signal, isDone)) {
        for (const event of events) {
          if (isDone(event)) {
            for (const part of assembler.end()) {
              yield part.type === "finish"
                ? { type: "finish", response: withRequestId(part.response, requestId) }
                : part;
            }
            return;
          }
          yield* assembler.accept(event.data);
        }
      }
      throw new StreamTruncatedError({ provider: this.provider, message: "the stream ended before [DONE]" });
    } finally {
      scope.release();
    }
  }

  #post(code: WireCode, request: ModelRequest, stream: boolean, signal: AbortSignal | undefined): Promise<Response> {
    return postJson({
      provider: this.provider,
      url: `${this.#connection.baseURL}/chat/completions`,
      headers: this.#connection.headers(),
      body: code.toChatBody(this.modelId, request, {
        stream,
        maxTokensField: this.#maxTokensField,
        provider: this.provider,
      }),
      signal,
      fetch: this.#connection.fetch,
    });
  }
}

const isDone = (event: { data: string }): boolean => event.data.trim() === "[DONE]";
