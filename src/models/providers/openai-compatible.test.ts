import { describe, expect, it } from "vitest";
import { AuthenticationError, ProviderConfigurationError } from "../../errors/provider-error.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import {
  createOpenAICompatibleModel,
  type OpenAICompatibleProvider,
  openAICompatiblePresets,
} from "./openai-compatible.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch } from "./test-support/wire-fetch.js";

const wireFor = () => {
  const reply = openAIChatFixture.reply("text", false);
  return createWireFetch(() => ({ status: 200, headers: reply.headers, chunks: [Buffer.from(reply.body)] }));
};

const expectedBaseURLs: Record<Exclude<OpenAICompatibleProvider, "custom">, string> = {
  groq: "https://api.groq.com/openai/v1",
  mistral: "https://api.mistral.ai/v1",
  openrouter: "https://openrouter.ai/api/v1",
  together: "https://api.together.xyz/v1",
  deepseek: "https://api.deepseek.com/v1",
  xai: "https://api.x.ai/v1",
  ollama: "http://127.0.0.1:11434/v1",
  lmstudio: "http://127.0.0.1:1234/v1",
  vllm: "http://127.0.0.1:8000/v1",
  sglang: "http://127.0.0.1:30000/v1",
  llamacpp: "http://127.0.0.1:8080/v1",
};
const localProviders = new Set(["ollama", "lmstudio", "vllm", "sglang", "llamacpp"]);

describe("OpenAI-compatible presets", () => {
  for (const [provider, baseURL] of Object.entries(expectedBaseURLs)) {
    const name = provider as OpenAICompatibleProvider;
    const KEY = `${provider.toUpperCase()}_API_KEY`;
    const URL_ENV = `${provider.toUpperCase()}_BASE_URL`;

    it(`${provider}: default base URL, ${KEY} as bearer key, provider name on the model`, async () => {
      const wire = wireFor();
      const model = createOpenAICompatibleModel(name, "m-1", { fetch: wire.fetch, env: { [KEY]: "key-from-env" } });
      expect(model.provider).toBe(provider);
      expect(model.modelId).toBe("m-1");
      await model.doGenerate(suiteRequest("text"));
      expect(wire.requests[0]?.path).toBe(`${new URL(baseURL).pathname}/chat/completions`);
      expect(wire.requests[0]?.headers.authorization).toBe("Bearer key-from-env");
      expect((wire.requests[0]?.body as { max_tokens?: number }).max_tokens).toBe(1024);
    });

    it(`${provider}: ${URL_ENV} overrides the default; settings override the environment`, async () => {
      const wire = wireFor();
      const env = { [KEY]: "env-key", [URL_ENV]: "http://env.example/api/" };
      await createOpenAICompatibleModel(name, "m", { fetch: wire.fetch, env }).doGenerate(suiteRequest("text"));
      expect(wire.requests[0]?.path).toBe("/api/chat/completions");
      const settings = { fetch: wire.fetch, env, baseURL: "http://set.example/x", apiKey: "set-key" };
      await createOpenAICompatibleModel(name, "m", settings).doGenerate(suiteRequest("text"));
      expect(wire.requests[1]?.path).toBe("/x/chat/completions");
      expect(wire.requests[1]?.headers.authorization).toBe("Bearer set-key");
    });

    if (localProviders.has(provider)) {
      it(`${provider}: works without a key and sends no authorization header`, async () => {
        const wire = wireFor();
        await createOpenAICompatibleModel(name, "m", { fetch: wire.fetch, env: {} }).doGenerate(suiteRequest("text"));
        expect(wire.requests[0]?.headers.authorization).toBeUndefined();
      });
    } else {
      it(`${provider}: resolves offline without a key; the request fails with AuthenticationError naming ${KEY}`, async () => {
        const wire = wireFor();
        const model = createOpenAICompatibleModel(name, "m", { fetch: wire.fetch, env: {} });
        const error = await model.doGenerate(suiteRequest("text")).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(String((error as Error).message)).toContain(KEY);
        expect(wire.requests).toHaveLength(0);
      });
    }
  }

  it("custom: needs a base URL, from settings or CUSTOM_BASE_URL", async () => {
    expect(() => createOpenAICompatibleModel("custom", "m", { env: {} })).toThrow(ProviderConfigurationError);
    expect(() => createOpenAICompatibleModel("custom", "m", { env: {} })).toThrow(/base URL/);
    const wire = wireFor();
    await createOpenAICompatibleModel("custom", "m", {
      baseURL: "http://10.0.0.5:9000/v1",
      fetch: wire.fetch,
      env: {},
    }).doGenerate(suiteRequest("text"));
    expect(wire.requests[0]?.path).toBe("/v1/chat/completions");
    const fromEnv = createOpenAICompatibleModel("custom", "m", { env: { CUSTOM_BASE_URL: "http://h/v1" } });
    expect(fromEnv.provider).toBe("custom");
  });

  it("deepseek does not claim native structured output; the others do", () => {
    expect(openAICompatiblePresets.deepseek.nativeOutput).toBe(false);
    expect(createOpenAICompatibleModel("groq", "m", { env: {} }).capabilities?.nativeOutput).toBe(true);
  });

  it("openai-chat reads OPENAI_API_KEY and OPENAI_BASE_URL and sends max_completion_tokens", async () => {
    const wire = wireFor();
    const env = { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: "http://proxy.example/openai/v1" };
    await createOpenAIChatModel("gpt-4o", { fetch: wire.fetch, env }).doGenerate(suiteRequest("text"));
    expect(wire.requests[0]?.path).toBe("/openai/v1/chat/completions");
    expect(wire.requests[0]?.headers.authorization).toBe("Bearer sk-env");
    expect((wire.requests[0]?.body as { max_completion_tokens?: number }).max_completion_tokens).toBe(1024);
  });
});
