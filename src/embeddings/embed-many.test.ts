import { describe, expect, it } from "vitest";
import { EmbeddingCountMismatchError, EmbeddingInputError } from "../errors/embedding-errors.js";
import { BadRequestError, RateLimitError } from "../errors/provider-error.js";
import { UnknownModelError } from "../errors/user-errors.js";
import { decodeFloat32Base64 } from "./decode-float32-base64.js";
import { embed } from "./embed.js";
import { DEFAULT_MAX_PARALLEL_CALLS, embedMany } from "./embed-many.js";
import type { EmbeddingModel, EmbeddingRequest, EmbeddingResponse } from "./embedding-model.js";
import { embeddingModel, registerEmbeddingProvider, registeredEmbeddingProviders } from "./embedding-registry.js";
import { embeddingModelOf } from "./test-support/embedding-test-support.js";

/** A call the test answers by hand. */
interface PendingCall {
  readonly request: EmbeddingRequest;
  resolve(response: EmbeddingResponse): void;
  reject(error: unknown): void;
}

/** A model whose calls wait until the test answers them; an abort rejects a call with the signal's reason. */
function manualModel(maxBatchSize: number) {
  const calls: PendingCall[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const model: EmbeddingModel = {
    specificationVersion: "nous-embedding-v1",
    provider: "manual",
    modelId: "m",
    maxBatchSize,
    doEmbed(request) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<EmbeddingResponse>((resolve, reject) => {
        const settle = () => inFlight--;
        request.signal?.addEventListener("abort", () => reject(request.signal?.reason), { once: true });
        calls.push({
          request,
          resolve: (response) => {
            settle();
            resolve(response);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
      });
    },
  };
  return { model, calls, maxInFlight: () => maxInFlight };
}

/** Each value's vector is its length; usage as given. */
const answer = (request: EmbeddingRequest, inputTokens?: number): EmbeddingResponse => ({
  embeddings: request.values.map((value) => [value.length]),
  usage: inputTokens === undefined ? {} : { inputTokens },
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("embedMany: batches and bounded parallel calls", () => {
  it("never more calls in flight than maxParallelCalls, results in input order whatever the answer order", async () => {
    const { model, calls, maxInFlight } = manualModel(2);
    const values = Array.from({ length: 10 }, (_, index) => "x".repeat(index + 1));
    const pending = embedMany({ model, values, maxParallelCalls: 3 });
    await settle();
    expect(calls).toHaveLength(3);
    // Answer the newest open call first, each time, until all five batches are done.
    const answered = new Set<PendingCall>();
    while (answered.size < 5) {
      const newest = calls.filter((call) => !answered.has(call)).at(-1);
      if (newest === undefined) throw new Error("no call open");
      answered.add(newest);
      newest.resolve(answer(newest.request, newest.request.values.length));
      await settle();
    }
    const result = await pending;
    expect(maxInFlight()).toBe(3);
    expect(result.embeddings).toEqual(values.map((value) => [value.length]));
    expect(result.usage).toEqual({ inputTokens: 10 });
    expect(result.batches.map((batch) => batch.size)).toEqual([2, 2, 2, 2, 2]);
  });

  it(`defaults to ${DEFAULT_MAX_PARALLEL_CALLS} calls in flight; Infinity sends every batch at once`, async () => {
    for (const [limit, expected] of [
      [undefined, DEFAULT_MAX_PARALLEL_CALLS],
      [Number.POSITIVE_INFINITY, 9],
    ] as const) {
      const { model, calls } = manualModel(1);
      const pending = embedMany({
        model,
        values: Array.from({ length: 9 }, () => "v"),
        ...(limit === undefined ? {} : { maxParallelCalls: limit }),
      });
      await settle();
      expect(calls).toHaveLength(expected);
      while (calls.length > 0) {
        calls.shift()?.resolve(answer({ values: ["v"] }));
        await settle();
      }
      await pending;
    }
  });

  it("the first failing batch cancels the others in flight, starts no more, and is what is thrown", async () => {
    const { model, calls } = manualModel(1);
    const pending = embedMany({ model, values: ["a", "b", "c", "d", "e"], maxParallelCalls: 2, retry: false });
    await settle();
    const failure = new BadRequestError({ provider: "manual", message: "bad" });
    calls[1]?.reject(failure);
    await expect(pending).rejects.toBe(failure);
    expect(calls[0]?.request.signal?.aborted).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it("usage has inputTokens only when every batch reported them", async () => {
    const counts = [5, undefined];
    let call = 0;
    const model = embeddingModelOf("p", 1, async (request) => answer(request, counts[call++]));
    expect((await embedMany({ model, values: ["a", "b"], maxParallelCalls: 1 })).usage).toEqual({});
  });

  it("a model answering fewer vectors than values is an EmbeddingCountMismatchError", async () => {
    const model = embeddingModelOf("short", 10, async () => ({ embeddings: [[1]], usage: {} }));
    await expect(embedMany({ model, values: ["a", "b"] })).rejects.toThrow(EmbeddingCountMismatchError);
    await expect(
      embed({ model: { ...model, doEmbed: async () => ({ embeddings: [], usage: {} }) }, value: "a" }),
    ).rejects.toMatchObject({
      expected: 1,
      received: 0,
    });
  });

  it("bad options are EmbeddingInputErrors before any call", async () => {
    const { model, calls } = manualModel(1);
    for (const maxParallelCalls of [0, 1.5, -1, Number.NaN]) {
      await expect(embedMany({ model, values: ["a"], maxParallelCalls })).rejects.toThrow(EmbeddingInputError);
    }
    await expect(embedMany({ model, values: "abc" as unknown as string[] })).rejects.toThrow(EmbeddingInputError);
    await expect(embedMany({ model, values: ["a"], dimensions: 2.5 })).rejects.toThrow(/dimensions/);
    expect(calls).toHaveLength(0);
  });
});

describe("embed and embedMany: cancellation", () => {
  it("an aborted signal rejects with its reason; nothing is sent", async () => {
    const { model, calls } = manualModel(1);
    const reason = new Error("gone");
    const signal = AbortSignal.abort(reason);
    await expect(embedMany({ model, values: ["a", "b"], signal })).rejects.toBe(reason);
    await expect(embed({ model, value: "a", signal })).rejects.toBe(reason);
    expect(calls).toHaveLength(0);
  });

  it("an abort during a retry wait ends the wait and rejects with the reason", async () => {
    let attempts = 0;
    const model = embeddingModelOf("limited", 10, async () => {
      attempts++;
      throw new RateLimitError({ provider: "limited", message: "slow down", retryAfterMs: 50_000 });
    });
    const controller = new AbortController();
    const pending = embed({ model, value: "a", signal: controller.signal });
    await settle();
    const reason = new Error("cancelled while waiting");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(attempts).toBe(1);
  });
});

describe("embeddingModel: provider:model strings", () => {
  it("knows openai, gemini and the OpenAI-compatible presets", () => {
    expect(registeredEmbeddingProviders()).toEqual(
      expect.arrayContaining(["openai", "gemini", "ollama", "lmstudio", "vllm", "mistral"]),
    );
    expect(embeddingModel("openai:text-embedding-3-small", { env: {} })).toMatchObject({
      specificationVersion: "nous-embedding-v1",
      provider: "openai",
      modelId: "text-embedding-3-small",
      maxBatchSize: 2048,
    });
    expect(embeddingModel("gemini:gemini-embedding-001")).toMatchObject({ provider: "gemini", maxBatchSize: 100 });
  });

  it("an unknown provider is an UnknownModelError; a registered one resolves, in embed too", async () => {
    expect(() => embeddingModel("nowhere:model")).toThrow(UnknownModelError);
    registerEmbeddingProvider("letters", (modelId) => ({
      ...embeddingModelOf("letters", 100, async (request) => answer(request)),
      modelId,
    }));
    expect(await embed({ model: "letters:count", value: "hello" })).toEqual({ embedding: [5], usage: {} });
  });
});

describe("decodeFloat32Base64", () => {
  it("reads little-endian float32", () => {
    expect(decodeFloat32Base64("AACAPwAAAMA=")).toEqual([1, -2]);
    const floats = new Float32Array([0.125, -3.5, 1e-3]);
    expect(decodeFloat32Base64(Buffer.from(floats.buffer).toString("base64"))).toEqual([...floats]);
  });

  it("is undefined for text that is not base64 or not whole floats", () => {
    expect(decodeFloat32Base64("not base64!")).toBeUndefined();
    expect(decodeFloat32Base64("AACA")).toBeUndefined();
  });
});
