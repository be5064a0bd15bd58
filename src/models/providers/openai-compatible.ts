import type { Model } from "../model.js";
import type { ModelFactory, ProviderSettings } from "../provider-settings.js";
import { createOpenAIChatModel, type OpenAIChatSpec } from "./openai-chat.js";

/** The OpenAI-compatible providers Nous knows by name. */
export type OpenAICompatibleProvider =
  | "groq"
  | "mistral"
  | "openrouter"
  | "together"
  | "deepseek"
  | "xai"
  | "ollama"
  | "lmstudio"
  | "vllm"
  | "sglang"
  | "llamacpp"
  | "custom";

const hosted = (provider: string, defaultBaseURL: string, extra: Partial<OpenAIChatSpec> = {}): OpenAIChatSpec => ({
  provider,
  defaultBaseURL,
  apiKeyEnv: `${provider.toUpperCase()}_API_KEY`,
  baseURLEnv: `${provider.toUpperCase()}_BASE_URL`,
  requiresApiKey: true,
  maxTokensField: "max_tokens",
  ...extra,
});

const local = (provider: string, defaultBaseURL: string | undefined): OpenAIChatSpec => ({
  provider,
  ...(defaultBaseURL === undefined ? {} : { defaultBaseURL }),
  apiKeyEnv: `${provider.toUpperCase()}_API_KEY`,
  baseURLEnv: `${provider.toUpperCase()}_BASE_URL`,
  requiresApiKey: false,
  maxTokensField: "max_tokens",
});

/**
 * Each preset's endpoint and environment variables. Hosted services need a key
 * (`<PROVIDER>_API_KEY`); local servers do not, but send one when it is set. Every preset reads
 * `<PROVIDER>_BASE_URL` too; `custom` has no default and needs a base URL.
 */
export const openAICompatiblePresets: Readonly<Record<OpenAICompatibleProvider, OpenAIChatSpec>> = {
  groq: hosted("groq", "https://api.groq.com/openai/v1"),
  mistral: hosted("mistral", "https://api.mistral.ai/v1"),
  openrouter: hosted("openrouter", "https://openrouter.ai/api/v1"),
  together: hosted("together", "https://api.together.xyz/v1"),
  deepseek: hosted("deepseek", "https://api.deepseek.com/v1", { nativeOutput: false }),
  xai: hosted("xai", "https://api.x.ai/v1"),
  ollama: local("ollama", "http://127.0.0.1:11434/v1"),
  lmstudio: local("lmstudio", "http://127.0.0.1:1234/v1"),
  vllm: local("vllm", "http://127.0.0.1:8000/v1"),
  sglang: local("sglang", "http://127.0.0.1:30000/v1"),
  llamacpp: local("llamacpp", "http://127.0.0.1:8080/v1"),
  custom: local("custom", undefined),
};

/**
 * A model of an OpenAI-compatible provider, through the Chat Completions adapter. A missing key is
 * reported when a request is made; `custom` without a base URL fails here with a
 * `ProviderConfigurationError`.
 *
 * @example
 * const groq = createOpenAICompatibleModel("groq", "llama-3.3-70b-versatile"); // reads GROQ_API_KEY
 * const local = createOpenAICompatibleModel("ollama", "qwen3:8b");
 * const mine = createOpenAICompatibleModel("custom", "my-model", { baseURL: "http://10.0.0.5:9000/v1" });
 */
export function createOpenAICompatibleModel(
  provider: OpenAICompatibleProvider,
  modelId: string,
  settings?: ProviderSettings,
): Model {
  return createOpenAIChatModel(modelId, settings, openAICompatiblePresets[provider]);
}

/** The registry factories of every preset, keyed by provider name. */
export const openAICompatibleFactories: Readonly<Record<OpenAICompatibleProvider, ModelFactory>> = Object.fromEntries(
  Object.keys(openAICompatiblePresets).map((name) => [
    name,
    (modelId: string, settings?: ProviderSettings) =>
      createOpenAICompatibleModel(name as OpenAICompatibleProvider, modelId, settings),
  ]),
) as Record<OpenAICompatibleProvider, ModelFactory>;
