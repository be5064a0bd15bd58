import { UnknownModelError } from "../errors/user-errors.js";
import type { ProviderSettings } from "../models/provider-settings.js";
import { type OpenAICompatibleProvider, openAICompatiblePresets } from "../models/providers/openai-compatible.js";
import type { EmbeddingModel } from "./embedding-model.js";
import { createGeminiEmbeddingModel } from "./gemini-embedding-model.js";
import { createOpenAICompatibleEmbeddingModel, createOpenAIEmbeddingModel } from "./openai-embedding-model.js";

/** Makes an embedding model of one provider from the model id (the part after the colon). */
export type EmbeddingModelFactory = (modelId: string, settings?: ProviderSettings) => EmbeddingModel;

const providers = new Map<string, EmbeddingModelFactory>([
  ["openai", (modelId, settings) => createOpenAIEmbeddingModel(modelId, settings)],
  ["gemini", (modelId, settings) => createGeminiEmbeddingModel(modelId, settings)],
  ...Object.keys(openAICompatiblePresets).map((name): [string, EmbeddingModelFactory] => [
    name,
    (modelId, settings) => createOpenAICompatibleEmbeddingModel(name as OpenAICompatibleProvider, modelId, settings),
  ]),
]);

/**
 * Registers an embedding provider so that `"name:model"` strings resolve to it.
 *
 * @example
 * registerEmbeddingProvider("letters", (modelId) => ({
 *   specificationVersion: "nous-embedding-v1", provider: "letters", modelId, maxBatchSize: 100,
 *   async doEmbed({ values }) { return { embeddings: values.map((value) => [value.length]), usage: {} }; },
 * }));
 */
export function registerEmbeddingProvider(name: string, factory: EmbeddingModelFactory): void {
  providers.set(name, factory);
}

/** The names of the registered embedding providers. */
export function registeredEmbeddingProviders(): string[] {
  return [...providers.keys()].sort();
}

/**
 * An embedding model from a `"provider:model"` string (or the instance itself): `openai`, `gemini`
 * and every OpenAI-compatible preset (`ollama`, `lmstudio`, `vllm`, `mistral`, `together`, …), with
 * the keys and base URLs of their chat models. An unknown provider is an `UnknownModelError`.
 *
 * @example
 * const model = embeddingModel("openai:text-embedding-3-small");
 * const local = embeddingModel("ollama:nomic-embed-text");
 */
export function embeddingModel(model: EmbeddingModel | string, settings?: ProviderSettings): EmbeddingModel {
  if (typeof model !== "string") return model;
  const colon = model.indexOf(":");
  const provider = colon === -1 ? model : model.slice(0, colon);
  const modelId = colon === -1 ? "" : model.slice(colon + 1);
  const factory = providers.get(provider);
  if (factory === undefined) throw new UnknownModelError({ model, known: registeredEmbeddingProviders() });
  return factory(modelId, settings);
}
