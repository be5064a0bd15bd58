import { describe, expect, it } from "vitest";
import { resolveModel } from "../registry.js";

describe("built-in providers", () => {
  const names = [
    "openai",
    "openai-chat",
    "groq",
    "mistral",
    "openrouter",
    "together",
    "deepseek",
    "xai",
    "ollama",
    "lmstudio",
    "vllm",
    "sglang",
    "llamacpp",
  ];
  for (const name of names) {
    it(`"${name}:some-model" resolves offline, without a key, to a model of that provider`, () => {
      const model = resolveModel(`${name}:some-model`, { env: {} });
      expect(model.provider).toBe(name);
      expect(model.modelId).toBe("some-model");
    });
  }
  it('"custom:m" resolves with a base URL', () => {
    expect(resolveModel("custom:m", { baseURL: "http://127.0.0.1:9/v1", env: {} }).provider).toBe("custom");
  });
});
