import { AuthenticationError } from "../../errors/provider-error.js";
import { processEnv } from "../../platform/node-builtin.js";
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
import type { AnthropicStructuredOutputMode, AnthropicWireRequest } from "./anthropic-request.js";
import { registerProviderSecrets } from "./shared/connection.js";
import { type HttpRequest, readSse, requestIdOf, scopeSignal, withRequestId } from "./shared/http.js";
import { lazyModule } from "./shared/lazy-module.js";

const PROVIDER = "anthropic";
const DEFAULT_BASE_URL = "https://api.anthropic.com";
const API_VERSION = "2023-06-01";

/** Request building and response parsing: loaded by the first request, not when the package is imported. */
const wireCode = lazyModule(() => import("./anthropic-wire.js"));
type WireCode = Awaited<ReturnType<typeof wireCode.load>>;

/** Settings of the Anthropic provider: the common ones plus how structured output is sent. */
export interface AnthropicSettings extends ProviderSettings {
  /**
   * `"native"` sends `request.output` as `output_config.format` (JSON-schema constrained decoding);
   * `"tool"` emulates it with a forced tool call. Defaults to native on models that support it.
   */
  structuredOutput?: AnthropicStructuredOutputMode;
}

/**
 * Whether a model supports `output_config.format`: Claude 4.5 and later. Older families (Claude 3,
 * Sonnet 4, Opus 4 and 4.1) do not; unknown ids are assumed to be newer models.
 */
export function anthropicSupportsNativeOutput(modelId: string): boolean {
  if (/^claude-(instant|2|3)/.test(modelId)) return false;
  const family = /^claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(modelId);
  if (family === null) return true;
  const major = Number(family[1]);
  const minor = family[2] === undefined ? 0 : Number(family[2]);
  return major > 4 || (major === 4 && minor >= 5);
}

class AnthropicModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = PROVIDER;
  readonly capabilities: ModelCapabilities;
  readonly wire: WireTarget;
  readonly #settings: AnthropicSettings;
  readonly #structuredOutput: AnthropicStructuredOutputMode;

  constructor(
    readonly modelId: string,
    settings: AnthropicSettings,
  ) {
    this.#settings = settings;
    this.#structuredOutput = settings.structuredOutput ?? (anthropicSupportsNativeOutput(modelId) ? "native" : "tool");
    this.capabilities = { tools: true, nativeOutput: this.#structuredOutput === "native" };
    this.wire = { api: "anthropic", modelId, options: { structuredOutput: this.#structuredOutput } };
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const { http, wire } = this.#prepare(code, request, false);
    const scope = scopeSignal(request.signal);
    try {
      const response = await code.postAnthropic({ ...http, signal: scope.signal });
      const body = await code.readAnthropicJson(response, scope.signal);
      return withRequestId(code.parseAnthropicResponse(body, wire.outputToolName), requestIdOf(response));
    } finally {
      scope.release();
    }
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const code = wireCode.loaded ?? (await wireCode.load());
    const { http, wire } = this.#prepare(code, request, true);
    const scope = scopeSignal(request.signal);
    try {
      const response = await code.postAnthropic({ ...http, signal: scope.signal });
      const requestId = requestIdOf(response);
      for await (const part of code.streamAnthropic(readSse(response, PROVIDER, scope.signal), wire.outputToolName)) {
        yield part.type === "finish" ? { type: "finish", response: withRequestId(part.response, requestId) } : part;
      }
    } finally {
      scope.release();
    }
  }

  #prepare(code: WireCode, request: ModelRequest, stream: boolean): { http: HttpRequest; wire: AnthropicWireRequest } {
    const env = this.#settings.env ?? processEnv();
    const apiKey = this.#settings.apiKey ?? env.ANTHROPIC_API_KEY;
    if (apiKey === undefined || apiKey === "") {
      throw new AuthenticationError({
        provider: PROVIDER,
        message: "no API key: set ANTHROPIC_API_KEY or pass { apiKey } in the provider settings",
      });
    }
    registerProviderSecrets(apiKey, this.#settings.headers);
    const baseURL = (this.#settings.baseURL ?? env.ANTHROPIC_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    const wire = code.buildAnthropicRequest(request, {
      modelId: this.modelId,
      stream,
      structuredOutput: this.#structuredOutput,
    });
    const http: HttpRequest = {
      provider: PROVIDER,
      url: `${baseURL}/v1/messages`,
      headers: {
        "x-api-key": apiKey,
        "anthropic-version": API_VERSION,
        ...(stream ? { accept: "text/event-stream" } : {}),
        ...this.#settings.headers,
        ...code.betaHeader(wire.betas, this.#settings.headers),
      },
      body: wire.body,
    };
    if (this.#settings.fetch !== undefined) http.fetch = this.#settings.fetch;
    return { http, wire };
  }
}

/**
 * An Anthropic Messages API model (`POST {baseURL}/v1/messages`). Reads `ANTHROPIC_API_KEY` and
 * `ANTHROPIC_BASE_URL` from `settings.env ?? process.env` when a request is made, so a model can be
 * built offline; explicit settings win. Extended thinking and other wire options go in
 * `settings.providerOptions.anthropic` (e.g. `{ thinking: { type: "enabled", budget_tokens: 2048 } }`).
 *
 * @example
 * const model = createAnthropicModel("claude-sonnet-4-5");
 * const answer = await model.doGenerate({ messages: [{ role: "user", content: "Hi" }], tools: [], settings: {} });
 */
export function createAnthropicModel(modelId: string, settings: AnthropicSettings = {}): Model {
  return new AnthropicModel(modelId, settings);
}
