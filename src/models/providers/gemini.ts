import { MalformedResponseError } from "../../errors/provider-error.js";
import { randomUuid } from "../../platform/random-uuid.js";
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
import { geminiEndpoint, geminiModelResource } from "./shared/gemini-endpoint.js";
import { type HttpRequest, readJson, readSse, requestIdOf, scopeSignal, withRequestId } from "./shared/http.js";
import { lazyModule } from "./shared/lazy-module.js";

const PROVIDER = "gemini";

/** Request building and response parsing: loaded by the first request, not when the package is imported. */
const wireCode = lazyModule(() => import("./gemini-wire.js"));
type WireCode = Awaited<ReturnType<typeof wireCode.load>>;

/** Settings of the Gemini provider: the common ones plus the id source for function calls without ids. */
export interface GeminiSettings extends ProviderSettings {
  /** Makes the id of a function call Gemini sent without one (default: `call_` + a random UUID). */
  generateId?: () => string;
}

const defaultGenerateId = (): string => `call_${randomUuid().replaceAll("-", "")}`;

class GeminiModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = PROVIDER;
  /** `responseJsonSchema` constrains the answer to a JSON schema: native structured output. */
  readonly capabilities: ModelCapabilities = { tools: true, nativeOutput: true };
  readonly wire: WireTarget;
  readonly #settings: GeminiSettings;
  readonly #generateId: () => string;

  constructor(
    readonly modelId: string,
    settings: GeminiSettings,
  ) {
    this.#settings = settings;
    this.#generateId = settings.generateId ?? defaultGenerateId;
    this.wire = { api: "gemini", modelId };
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const http = this.#prepare(code, request, false);
    const scope = scopeSignal(request.signal);
    try {
      const response = await code.postGemini({ ...http, signal: scope.signal });
      let body: unknown;
      try {
        body = await readJson(response, PROVIDER, scope.signal);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        throw new MalformedResponseError({ provider: PROVIDER, message: `the body is not JSON: ${error.message}` });
      }
      return withRequestId(code.parseGeminiResponse(body, this.#generateId), requestIdOf(response));
    } finally {
      scope.release();
    }
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const http = this.#prepare(code, request, true);
    const scope = scopeSignal(request.signal);
    try {
      const response = await code.postGemini({ ...http, signal: scope.signal });
      const requestId = requestIdOf(response);
      for await (const part of code.streamGemini(readSse(response, PROVIDER, scope.signal), this.#generateId)) {
        yield part.type === "finish" ? { type: "finish", response: withRequestId(part.response, requestId) } : part;
      }
    } finally {
      scope.release();
    }
  }

  #prepare(code: WireCode, request: ModelRequest, stream: boolean): HttpRequest {
    const { baseURL, headers } = geminiEndpoint(this.#settings);
    const model = geminiModelResource(this.modelId);
    const method = stream ? "streamGenerateContent?alt=sse" : "generateContent";
    const http: HttpRequest = {
      provider: PROVIDER,
      url: `${baseURL}/v1beta/${model}:${method}`,
      headers,
      body: code.buildGeminiRequest(request),
    };
    if (this.#settings.fetch !== undefined) http.fetch = this.#settings.fetch;
    return http;
  }
}

/**
 * A Google Gemini API model (`POST {baseURL}/v1beta/models/{model}:generateContent`, streaming via
 * `:streamGenerateContent?alt=sse`). Reads `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) and
 * `GEMINI_BASE_URL` from `settings.env ?? process.env` when a request is made, so a model can be
 * built offline; explicit settings win. Thinking and safety options go in
 * `settings.providerOptions.gemini` (e.g. `{ thinkingConfig: { includeThoughts: true } }`).
 *
 * @example
 * const model = createGeminiModel("gemini-2.5-flash");
 * const answer = await model.doGenerate({ messages: [{ role: "user", content: "Hi" }], tools: [], settings: {} });
 */
export function createGeminiModel(modelId: string, settings: GeminiSettings = {}): Model {
  return new GeminiModel(modelId, settings);
}
