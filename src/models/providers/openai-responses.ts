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
import { type Connection, type ConnectionSpec, resolveConnection } from "./shared/connection.js";
import { postJson, readJson, readSseBatches, requestIdOf, scopeSignal, withRequestId } from "./shared/http.js";
import { lazyModule } from "./shared/lazy-module.js";

/** Request building and response parsing: loaded by the first request, not when the package is imported. */
const wireCode = lazyModule(() => import("./openai-responses-wire.js"));

/** OpenAI's Responses API endpoint and the environment variables it reads. */
export const openAIResponsesSpec: ConnectionSpec = {
  provider: "openai",
  defaultBaseURL: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  baseURLEnv: "OPENAI_BASE_URL",
  requiresApiKey: true,
};

/**
 * A model served through the OpenAI Responses API (what `"openai:<model>"` resolves to). Requests
 * are sent with `store: false` (stateless: OpenAI keeps nothing), and reasoning models are asked
 * for `reasoning.encrypted_content`, which carries their reasoning into the next request; with
 * `providerOptions: { openai: { store: true } }` OpenAI keeps each response and reasoning is sent
 * back by id instead. Reasoning summaries become reasoning parts (ask for them with
 * `providerOptions: { openai: { reasoning: { effort: "low", summary: "auto" } } }`). A stream is
 * complete only at `response.completed` (or `response.incomplete`): a connection that closes
 * cleanly before it is a `StreamTruncatedError`.
 *
 * @example
 * const model = createOpenAIResponsesModel("gpt-5-mini"); // reads OPENAI_API_KEY, OPENAI_BASE_URL
 * const response = await model.doGenerate({ messages: [{ role: "user", content: "Hi" }], tools: [], settings: {} });
 */
export function createOpenAIResponsesModel(
  modelId: string,
  settings?: ProviderSettings,
  spec: ConnectionSpec = openAIResponsesSpec,
): Model {
  return new OpenAIResponsesModel(modelId, resolveConnection(spec, settings), spec.provider);
}

class OpenAIResponsesModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities = { tools: true, nativeOutput: true };
  readonly wire: WireTarget;
  readonly #connection: Connection;

  constructor(modelId: string, connection: Connection, provider: string) {
    this.provider = provider;
    this.modelId = modelId;
    this.#connection = connection;
    this.wire = { api: "openai-responses", modelId, options: { provider } };
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const scope = scopeSignal(request.signal);
    try {
      const body = code.toResponsesBody(this.modelId, request, { stream: false, provider: this.provider });
      const response = await this.#post(body, scope.signal);
      const answer = await readJson(response, this.provider, scope.signal);
      const parsed = code.parseResponsesAnswer(this.provider, answer, { stored: body.store === true });
      return withRequestId(parsed, requestIdOf(response));
    } finally {
      scope.release();
    }
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const scope = scopeSignal(request.signal);
    try {
      const body = code.toResponsesBody(this.modelId, request, { stream: true, provider: this.provider });
      const response = await this.#post(body, scope.signal);
      const assembler = new code.ResponsesStreamAssembler(this.provider, { stored: body.store === true });
      const requestId = requestIdOf(response);
      for await (const events of readSseBatches(response, this.provider, scope.signal)) {
        for (const event of events) {
          for (const part of assembler.accept(event.data)) {
            yield part.type === "finish" ? { type: "finish", response: withRequestId(part.response, requestId) } : part;
          }
          if (assembler.final !== undefined) return;
        }
      }
      throw new StreamTruncatedError({
        provider: this.provider,
        message: "the stream ended before response.completed",
      });
    } finally {
      scope.release();
    }
  }

  #post(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<Response> {
    return postJson({
      provider: this.provider,
      url: `${this.#connection.baseURL}/responses`,
      headers: this.#connection.headers(),
      body,
      signal,
      fetch: this.#connection.fetch,
    });
  }
}
