import { createOfflineModel } from "../offline-model.js";
import type { ModelFactory } from "../provider-settings.js";
import { createTestModel } from "../test-model.js";
import { createAnthropicModel } from "./anthropic.js";
import { createGeminiModel } from "./gemini.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import { openAICompatibleFactories } from "./openai-compatible.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";

/** The providers `"provider:model"` strings resolve to out of the box. */
export const builtinProviders: Record<string, ModelFactory> = {
  test: (modelId) => createTestModel(modelId),
  offline: (modelId) => createOfflineModel(modelId),
  openai: (modelId, settings) => createOpenAIResponsesModel(modelId, settings),
  "openai-chat": (modelId, settings) => createOpenAIChatModel(modelId, settings),
  anthropic: (modelId, settings) => createAnthropicModel(modelId, settings),
  gemini: (modelId, settings) => createGeminiModel(modelId, settings),
  ...openAICompatibleFactories,
};
