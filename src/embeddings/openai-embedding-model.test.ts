import { describe, expect, it, vi } from "vitest";
import { EmbeddingCountMismatchError, EmbeddingInputError } from "../errors/embedding-errors.js";
import {
  AuthenticationError,
  BadRequestError,
  MalformedResponseError,
  ProviderServerError,
  RateLimitError,
} from "../errors/provider-error.js";
import type { WireReply } from "../models/providers/test-support/dialect-fixture.js";
import { openAIErrorReply } from "../models/providers/test-support/openai-chat-fixture.js";
import { embed } from "./embed.js";
import { embedMany } from "./embed-many.js";
import { embeddingModel } from "./embedding-registry.js";
import { createOpenAICompatibleEmbeddingModel, createOpenAIEmbeddingModel } from "./openai-embedding-model.js";
import { instantRetry, useFakeServer } from "./test-support/embedding-test-support.js";

const KEY = "sk-embeddings-test-key-0123456789";

/** An embeddings answer as OpenAI sends it; `order` lists the indexes in the order the items appear. */
function embeddingsReply(
  vectors: readonly (readonly number[])[],
  options: { order?: readonly number[]; encoding?: "float" | "base64"; promptTokens?: number } = {},
): WireReply {
  const order = options.order ?? vectors.map((_, index) => index);
  const data = order.map((index) => ({
    object: "embedding",
    index,
    embedding:
      options.encoding === "base64"
        ? Buffer.from(new Float32Array(vectors[index] ?? []).buffer).toString("base64")
        : vectors[index],
  }));
  const tokens = options.promptTokens ?? vectors.length * 3;
  return {
    status: 200,
    headers: { "content-type": "application/json", "x-request-id": `req_${tokens}` },
    body: JSON.stringify(
      {
        object: "list",
        data,
        model: "text-embedding-3-small",
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
      null,
      2,
    ),
  };
}

/** Exactly representable in float32, so base64 round trips compare equal. */
const vector = (seed: number): number[] => [seed, seed + 0.5, -seed, 0.25];

const fake = useFakeServer();

const openai = (settings: Parameters<typeof createOpenAIEmbeddingModel>[1] = {}) =>
  createOpenAIEmbeddingModel("text-embedding-3-small", {
    baseURL: `${fake.server.url}/v1`,
    apiKey: KEY,
    env: {},
    ...settings,
  });

describe("OpenAI embeddings: the request on the wire", () => {
  it("embed sends model, input, encoding_format base64 and dimensions, with the bearer key", async () => {
    fake.server.enqueue(embeddingsReply([vector(1)], { encoding: "base64", promptTokens: 4 }));
    const result = await embed({ model: openai(), value: "sunny day", dimensions: 4 });
    expect(fake.server.requests).toHaveLength(1);
    const [request] = fake.server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/embeddings");
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      model: "text-embedding-3-small",
      input: ["sunny day"],
      encoding_format: "base64",
      dimensions: 4,
    });
    expect(result).toEqual({ embedding: vector(1), usage: { inputTokens: 4 }, requestId: "req_4" });
  });

  it("no dimensions field when none is asked; providerOptions.openai fields join the body but never replace input", async () => {
    fake.server.enqueue(embeddingsReply([vector(1), vector(2)], { encoding: "base64" }));
    await embedMany({
      model: openai(),
      values: ["a", "b"],
      providerOptions: { openai: { user: "user-7", input: ["not", "these"] } },
    });
    expect(fake.server.requests[0]?.body).toEqual({
      model: "text-embedding-3-small",
      input: ["a", "b"],
      encoding_format: "base64",
      user: "user-7",
    });
  });

  it("2049 values go out as two requests, 2048 then 1, and come back in input order", async () => {
    const values = Array.from({ length: 2049 }, (_, index) => `text ${index}`);
    fake.server.setFallback((request) => {
      const input = (request.body as { input: string[] }).input;
      const vectors = input.map((text) => [Number(text.slice(5))]);
      // Reversed on the wire: only `index` says which vector is which.
      return embeddingsReply(vectors, {
        order: vectors.map((_, index) => vectors.length - 1 - index),
        promptTokens: input.length,
      });
    });
    const { embeddings, usage, batches } = await embedMany({ model: openai(), values });
    expect(fake.server.requests.map((request) => (request.body as { input: string[] }).input.length).sort()).toEqual([
      1, 2048,
    ]);
    expect(embeddings).toEqual(values.map((_, index) => [index]));
    expect(usage).toEqual({ inputTokens: 2049 });
    expect(batches.map((batch) => batch.size)).toEqual([2048, 1]);
  });

  it("a float answer is read as is, and items out of order are put back by index", async () => {
    fake.server.enqueue(embeddingsReply([vector(1), vector(2), vector(3)], { order: [2, 0, 1] }));
    const { embeddings } = await embedMany({ model: openai(), values: ["a", "b", "c"] });
    expect(embeddings).toEqual([vector(1), vector(2), vector(3)]);
  });

  it("an empty list answers [] without a request", async () => {
    expect(await embedMany({ model: openai(), values: [] })).toEqual({ embeddings: [], usage: {}, batches: [] });
    expect(fake.server.requests).toHaveLength(0);
  });

  it("a non-string or empty value is an EmbeddingInputError naming its index, and nothing is sent", async () => {
    const bad = ["ok", 42] as unknown as string[];
    await expect(embedMany({ model: openai(), values: bad })).rejects.toMatchObject({ index: 1, fault: "user" });
    await expect(embedMany({ model: openai(), values: ["ok", "fine", ""] })).rejects.toThrow(EmbeddingInputError);
    await expect(embed({ model: openai(), value: "" })).rejects.toMatchObject({
      index: 0,
      code: "invalid_embedding_input",
    });
    await expect(embed({ model: openai(), value: "x", dimensions: 0 })).rejects.toThrow(EmbeddingInputError);
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe("OpenAI embeddings: answers that do not fit", () => {
  it("fewer embeddings than values is an EmbeddingCountMismatchError, not retried", async () => {
    fake.server.enqueue(embeddingsReply([vector(1)]));
    const error = await embedMany({ model: openai(), values: ["a", "b"] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddingCountMismatchError);
    expect(error).toMatchObject({ expected: 2, received: 1, fault: "provider", retryable: false });
    expect(fake.server.requests).toHaveLength(1);
  });

  it("an index given twice is an EmbeddingCountMismatchError", async () => {
    fake.server.enqueue(embeddingsReply([vector(1), vector(2)], { order: [1, 1] }));
    await expect(embedMany({ model: openai(), values: ["a", "b"] })).rejects.toThrow(/index 1 came twice/);
  });

  it("a body without a data array is a MalformedResponseError", async () => {
    fake.server.enqueue({ status: 200, headers: { "content-type": "application/json" }, body: '{"object":"list"}' });
    await expect(embed({ model: openai(), value: "a" })).rejects.toThrow(MalformedResponseError);
  });
});

describe("OpenAI embeddings: errors and retries, as for chat models", () => {
  it("400 is a BadRequestError, sent once", async () => {
    fake.server.enqueue(openAIErrorReply(400));
    await expect(embed({ model: openai(), value: "a" })).rejects.toThrow(BadRequestError);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("401 is an AuthenticationError, and the key it echoes never shows", async () => {
    fake.server.enqueue({
      status: 401,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }),
    });
    const error = await embed({ model: openai(), value: "a" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it("no key anywhere: an AuthenticationError naming OPENAI_API_KEY, before any request", async () => {
    const model = createOpenAIEmbeddingModel("text-embedding-3-small", { baseURL: `${fake.server.url}/v1`, env: {} });
    await expect(embed({ model, value: "a" })).rejects.toThrow(/OPENAI_API_KEY/);
    expect(fake.server.requests).toHaveLength(0);
  });

  it("429 with retry-after is retried after the delay the server asked for", async () => {
    fake.server.enqueue(
      openAIErrorReply(429, { "retry-after": "7" }),
      embeddingsReply([vector(1)], { encoding: "base64" }),
    );
    const delays: number[] = [];
    const { embedding } = await embed({ model: openai(), value: "a", retry: instantRetry(delays) });
    expect(embedding).toEqual(vector(1));
    expect(delays).toEqual([7000]);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("500 is retried with backoff, then fails as a ProviderServerError", async () => {
    fake.server.setFallback(openAIErrorReply(500));
    const delays: number[] = [];
    const error = await embed({ model: openai(), value: "a", retry: instantRetry(delays, { maxRetries: 2 }) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderServerError);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(delays).toEqual([500, 1000]);
    expect(fake.server.requests).toHaveLength(3);
  });

  it("retry: false sends once", async () => {
    fake.server.setFallback(openAIErrorReply(429));
    await expect(embed({ model: openai(), value: "a", retry: false })).rejects.toThrow(RateLimitError);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("an abort while the server has not answered rejects with the signal's reason and closes the request", async () => {
    fake.server.enqueue({ reply: embeddingsReply([vector(1)]), hangBeforeHeaders: true });
    const controller = new AbortController();
    const pending = embed({ model: openai(), value: "a", signal: controller.signal });
    await vi.waitFor(() => expect(fake.server.requests).toHaveLength(1));
    const reason = new Error("user cancelled");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await fake.server.waitForIdle();
  });
});

describe("OpenAI-compatible presets", () => {
  it("ollama:<model> goes to the Ollama base URL, float vectors, no key needed", async () => {
    const urls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      urls.push(String(input));
      expect(JSON.parse(String(init?.body))).toEqual({
        model: "nomic-embed-text",
        input: ["a"],
        encoding_format: "float",
      });
      return new Response(embeddingsReply([vector(1)]).body, { headers: { "content-type": "application/json" } });
    };
    const { embedding } = await embed({
      model: embeddingModel("ollama:nomic-embed-text", { fetch, env: {} }),
      value: "a",
    });
    expect(urls).toEqual(["http://127.0.0.1:11434/v1/embeddings"]);
    expect(embedding).toEqual(vector(1));
  });

  it("OLLAMA_BASE_URL moves it, and the server answers on the wire", async () => {
    fake.server.enqueue(embeddingsReply([vector(1), vector(2)]));
    const model = embeddingModel("ollama:nomic-embed-text", { env: { OLLAMA_BASE_URL: `${fake.server.url}/v1` } });
    expect(model).toMatchObject({ provider: "ollama", modelId: "nomic-embed-text", maxBatchSize: 2048 });
    const { embeddings } = await embedMany({ model, values: ["a", "b"] });
    expect(embeddings).toEqual([vector(1), vector(2)]);
    expect(fake.server.requests[0]?.path).toBe("/v1/embeddings");
    expect(fake.server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("a hosted preset sends its own key and its providerOptions; custom needs a base URL", async () => {
    fake.server.enqueue(embeddingsReply([vector(1)]));
    const model = createOpenAICompatibleEmbeddingModel("mistral", "mistral-embed", {
      env: { MISTRAL_API_KEY: "mistral-key-0123456789", MISTRAL_BASE_URL: `${fake.server.url}/v1` },
    });
    await embed({
      model,
      value: "a",
      providerOptions: { mistral: { output_dtype: "float" }, openai: { user: "ignored" } },
    });
    expect(fake.server.requests[0]?.headers.authorization).toBe("Bearer mistral-key-0123456789");
    expect(fake.server.requests[0]?.body).toEqual({
      model: "mistral-embed",
      input: ["a"],
      encoding_format: "float",
      output_dtype: "float",
    });
    expect(() => embeddingModel("custom:bge-m3", { env: {} })).toThrow(/no base URL/);
  });
});
