import { describe, expect, it, vi } from "vitest";
import { EmbeddingCountMismatchError } from "../errors/embedding-errors.js";
import {
  AuthenticationError,
  BadRequestError,
  MalformedResponseError,
  ProviderServerError,
} from "../errors/provider-error.js";
import type { WireReply } from "../models/providers/test-support/dialect-fixture.js";
import { geminiFixture } from "../models/providers/test-support/gemini.fixture.js";
import { embed } from "./embed.js";
import { embedMany } from "./embed-many.js";
import { embeddingModel } from "./embedding-registry.js";
import { createGeminiEmbeddingModel } from "./gemini-embedding-model.js";
import { instantRetry, useFakeServer } from "./test-support/embedding-test-support.js";

const KEY = "AIzaSy-embeddings-test-key-0123";
const JSON_HEADERS = { "content-type": "application/json; charset=UTF-8" };

/** `:embedContent`'s answer, as the Gemini API sends it. */
const embedContentReply = (values: readonly number[]): WireReply => ({
  status: 200,
  headers: JSON_HEADERS,
  body: JSON.stringify({ embedding: { values } }, null, 2),
});

/** `:batchEmbedContents`'s answer. */
const batchReply = (vectors: readonly (readonly number[])[]): WireReply => ({
  status: 200,
  headers: JSON_HEADERS,
  body: JSON.stringify({ embeddings: vectors.map((values) => ({ values })) }, null, 2),
});

const vector = (seed: number): number[] => [seed, -seed, seed / 4];

const fake = useFakeServer();

const gemini = () =>
  createGeminiEmbeddingModel("gemini-embedding-001", { baseURL: fake.server.url, apiKey: KEY, env: {} });

describe("Gemini embeddings: the request on the wire", () => {
  it("one value goes to :embedContent with outputDimensionality and the task type, keyed by x-goog-api-key", async () => {
    fake.server.enqueue(embedContentReply(vector(1)));
    const result = await embed({
      model: gemini(),
      value: "What is the meaning of life?",
      dimensions: 3,
      providerOptions: { gemini: { taskType: "RETRIEVAL_QUERY" } },
    });
    const [request] = fake.server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1beta/models/gemini-embedding-001:embedContent");
    expect(request?.headers["x-goog-api-key"]).toBe(KEY);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({
      content: { parts: [{ text: "What is the meaning of life?" }] },
      taskType: "RETRIEVAL_QUERY",
      outputDimensionality: 3,
    });
    expect(result).toEqual({ embedding: vector(1), usage: {} });
  });

  it("several values go to :batchEmbedContents, one request each naming the model, title passed on", async () => {
    fake.server.enqueue(batchReply([vector(1), vector(2)]));
    const { embeddings } = await embedMany({
      model: gemini(),
      values: ["first", "second"],
      providerOptions: { gemini: { taskType: "RETRIEVAL_DOCUMENT", title: "Handbook" } },
    });
    expect(fake.server.requests[0]?.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(fake.server.requests[0]?.body).toEqual({
      requests: [
        {
          model: "models/gemini-embedding-001",
          content: { parts: [{ text: "first" }] },
          taskType: "RETRIEVAL_DOCUMENT",
          title: "Handbook",
        },
        {
          model: "models/gemini-embedding-001",
          content: { parts: [{ text: "second" }] },
          taskType: "RETRIEVAL_DOCUMENT",
          title: "Handbook",
        },
      ],
    });
    expect(embeddings).toEqual([vector(1), vector(2)]);
  });

  it("250 values: batches of 100, 100 and 50, the vectors in input order", async () => {
    const values = Array.from({ length: 250 }, (_, index) => `doc ${index}`);
    fake.server.setFallback((request) => {
      const requests = (request.body as { requests: { content: { parts: { text: string }[] } }[] }).requests;
      return batchReply(requests.map((item) => [Number(item.content.parts[0]?.text.slice(4))]));
    });
    const { embeddings, batches, usage } = await embedMany({ model: gemini(), values, maxParallelCalls: 2 });
    const sizes = fake.server.requests.map((request) => (request.body as { requests: unknown[] }).requests.length);
    expect(sizes.sort((a, b) => a - b)).toEqual([50, 100, 100]);
    expect(embeddings).toEqual(values.map((_, index) => [index]));
    expect(batches.map((batch) => batch.size)).toEqual([100, 100, 50]);
    expect(usage).toEqual({});
  });

  it("GEMINI_API_KEY and GEMINI_BASE_URL are read like the chat model's; gemini:<model> resolves", async () => {
    fake.server.enqueue(embedContentReply(vector(2)));
    const model = embeddingModel("gemini:text-embedding-004", {
      env: { GEMINI_API_KEY: KEY, GEMINI_BASE_URL: `${fake.server.url}/` },
    });
    await embed({ model, value: "a" });
    expect(fake.server.requests[0]?.path).toBe("/v1beta/models/text-embedding-004:embedContent");
    expect(fake.server.requests[0]?.headers["x-goog-api-key"]).toBe(KEY);
  });
});

describe("Gemini embeddings: answers that do not fit", () => {
  it("a batch answer with fewer embeddings is an EmbeddingCountMismatchError", async () => {
    fake.server.enqueue(batchReply([vector(1)]));
    await expect(embedMany({ model: gemini(), values: ["a", "b"] })).rejects.toThrow(EmbeddingCountMismatchError);
  });

  it("an embedding without values is a MalformedResponseError", async () => {
    fake.server.enqueue({ status: 200, headers: JSON_HEADERS, body: '{"embedding":{}}' });
    await expect(embed({ model: gemini(), value: "a" })).rejects.toThrow(MalformedResponseError);
  });
});

describe("Gemini embeddings: errors and retries, as for the chat model", () => {
  it("400 INVALID_ARGUMENT is a BadRequestError, sent once", async () => {
    fake.server.enqueue(geminiFixture.errorReply(400));
    await expect(embed({ model: gemini(), value: "a" })).rejects.toThrow(BadRequestError);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("400 with reason API_KEY_INVALID is an AuthenticationError; a missing key fails before any request", async () => {
    fake.server.enqueue({
      status: 400,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        error: {
          code: 400,
          message: "API key not valid. Please pass a valid API key.",
          status: "INVALID_ARGUMENT",
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
        },
      }),
    });
    await expect(embed({ model: gemini(), value: "a" })).rejects.toThrow(AuthenticationError);
    const keyless = createGeminiEmbeddingModel("gemini-embedding-001", { baseURL: fake.server.url, env: {} });
    await expect(embed({ model: keyless, value: "a" })).rejects.toThrow(/GEMINI_API_KEY/);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("429 RESOURCE_EXHAUSTED is retried after the RetryInfo delay", async () => {
    fake.server.enqueue(
      {
        status: 429,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          error: {
            code: 429,
            message: "You exceeded your current quota.",
            status: "RESOURCE_EXHAUSTED",
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "12.5s" }],
          },
        }),
      },
      batchReply([vector(1), vector(2)]),
    );
    const delays: number[] = [];
    const { embeddings } = await embedMany({ model: gemini(), values: ["a", "b"], retry: instantRetry(delays) });
    expect(delays).toEqual([12_500]);
    expect(embeddings).toEqual([vector(1), vector(2)]);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("500 is retried, then fails as a ProviderServerError", async () => {
    fake.server.setFallback(geminiFixture.errorReply(500));
    const delays: number[] = [];
    const error = await embed({ model: gemini(), value: "a", retry: instantRetry(delays, { maxRetries: 1 }) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderServerError);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("an abort cancels every batch in flight", async () => {
    fake.server.setFallback({ reply: batchReply([]), hangBeforeHeaders: true });
    const controller = new AbortController();
    const values = Array.from({ length: 300 }, (_, index) => `v${index}`);
    const pending = embedMany({ model: gemini(), values, signal: controller.signal, maxParallelCalls: 2 });
    await vi.waitFor(() => expect(fake.server.activeResponses()).toBe(2));
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
    await fake.server.waitForIdle();
    expect(fake.server.requests).toHaveLength(2);
  });
});
