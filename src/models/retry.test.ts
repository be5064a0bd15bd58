import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { BadRequestError, NetworkError, ProviderServerError, RateLimitError } from "../errors/provider-error.js";
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from "./model.js";
import { classifyHttpError } from "./providers/shared/http.js";
import { abortableSleep, withRetry } from "./retry.js";

const answer: ModelResponse = { content: [{ type: "text", text: "ok" }], usage: {}, finishReason: "stop" };
const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [], settings: {} };

/** A model that fails with the given errors in turn (after `partsBeforeFailure` deltas when streaming), then answers. */
function flakyModel(errors: unknown[], partsBeforeFailure = 0) {
  let calls = 0;
  const model: Model & { calls(): number } = {
    specificationVersion: "nous-model-v1",
    provider: "flaky",
    modelId: "m",
    calls: () => calls,
    async doGenerate() {
      const error = errors[calls++];
      if (error !== undefined) throw error;
      return answer;
    },
    async *doStream(): AsyncGenerator<ModelStreamPart> {
      const error = errors[calls++];
      if (error !== undefined) {
        for (let index = 0; index < partsBeforeFailure; index++) yield { type: "text-delta", text: `partial${index}` };
        throw error;
      }
      yield { type: "text-delta", text: "ok" };
      yield { type: "finish", response: answer };
    },
  };
  return model;
}

function recorder() {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5 };
}

const httpError = (status: number, headers: Record<string, string> = {}) =>
  classifyHttpError({
    provider: "flaky",
    status,
    headers: new Headers(headers),
    bodyText: '{"error":{"message":"x"}}',
  });

/** The retry matrix of the README: status, headers → retried?, delay of the first retry. */
const matrix: [number, Record<string, string>, boolean, number | undefined][] = [
  [408, {}, true, 500],
  [408, { "retry-after": "2" }, true, 2000],
  [408, { "retry-after-ms": "1500" }, true, 1500],
  [409, {}, true, 500],
  [409, { "retry-after": "2" }, true, 2000],
  [409, { "retry-after-ms": "1500" }, true, 1500],
  [429, {}, true, 500],
  [429, { "retry-after": "2" }, true, 2000],
  [429, { "retry-after-ms": "1500" }, true, 1500],
  [429, { "retry-after": "2", "retry-after-ms": "1500" }, true, 1500],
  [429, { "retry-after": "120" }, false, undefined],
  [500, {}, true, 500],
  [502, {}, true, 500],
  [503, {}, true, 500],
  [503, { "retry-after": "3" }, true, 3000],
  [504, {}, true, 500],
  [529, {}, true, 500],
  [400, {}, false, undefined],
  [401, {}, false, undefined],
  [403, {}, false, undefined],
  [404, {}, false, undefined],
  [413, {}, false, undefined],
];

describe("withRetry: the retry matrix", () => {
  for (const [status, headers, retried, delay] of matrix) {
    const label = `${status} ${JSON.stringify(headers)} → ${retried ? `retried after ${delay} ms` : "not retried"}`;
    it(`doGenerate: ${label}`, async () => {
      const inner = flakyModel([httpError(status, headers)]);
      const { sleeps, sleep, random } = recorder();
      const model = withRetry(inner, { sleep, random });
      if (retried) {
        await expect(model.doGenerate(request)).resolves.toEqual(answer);
        expect(inner.calls()).toBe(2);
        expect(sleeps).toEqual([delay]);
      } else {
        await expect(model.doGenerate(request)).rejects.toMatchObject({ status });
        expect(inner.calls()).toBe(1);
        expect(sleeps).toEqual([]);
      }
    });
    it(`doStream: ${label}`, async () => {
      const inner = flakyModel([httpError(status, headers)]);
      const { sleeps, sleep, random } = recorder();
      const parts: ModelStreamPart[] = [];
      const run = async () => {
        for await (const part of withRetry(inner, { sleep, random }).doStream(request)) parts.push(part);
      };
      if (retried) {
        await run();
        expect(parts.map((part) => part.type)).toEqual(["text-delta", "finish"]);
        expect(sleeps).toEqual([delay]);
      } else {
        await expect(run()).rejects.toMatchObject({ status });
        expect(sleeps).toEqual([]);
      }
    });
  }
});

describe("withRetry: backoff, budget and aborts", () => {
  it("backs off exponentially with jitter, capped, up to maxRetries, then throws the last error", async () => {
    const errors = Array.from({ length: 6 }, () => new ProviderServerError({ provider: "p", message: "boom" }));
    const inner = flakyModel(errors);
    const sleeps: number[] = [];
    const randoms = [0, 0.999, 0.5, 0.5, 0.5];
    const model = withRetry(inner, {
      maxRetries: 5,
      maxDelayMs: 5000,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => randoms.shift() ?? 0.5,
    });
    await expect(model.doGenerate(request)).rejects.toBe(errors[5]);
    expect(inner.calls()).toBe(6);
    expect(sleeps).toEqual([400, 1200, 2000, 4000, 5000]);
  });

  it("never retries non-provider errors or non-retryable provider errors", async () => {
    for (const error of [new Error("bug"), new BadRequestError({ provider: "p", message: "bad" })]) {
      const inner = flakyModel([error]);
      await expect(withRetry(inner, { sleep: async () => {} }).doGenerate(request)).rejects.toBe(error);
      expect(inner.calls()).toBe(1);
    }
  });

  it("stops when the total wait would pass deadlineMs", async () => {
    const errors = Array.from({ length: 5 }, () => new NetworkError({ provider: "p", message: "down" }));
    const inner = flakyModel(errors);
    const { sleeps, sleep, random } = recorder();
    await expect(
      withRetry(inner, { sleep, random, maxRetries: 10, deadlineMs: 1600 }).doGenerate(request),
    ).rejects.toBe(errors[2]);
    expect(sleeps).toEqual([500, 1000]);
  });

  it("never retries after the caller's abort, and an abort during the wait ends it with the reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const inner = flakyModel([new RateLimitError({ provider: "p", message: "slow" })]);
    const pending = withRetry(inner, { initialDelayMs: 60_000, jitter: 0 }).doGenerate({
      ...request,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(inner.calls()).toBe(1);

    const aborted = AbortSignal.abort(reason);
    const second = flakyModel([new RateLimitError({ provider: "p", message: "slow" })]);
    await expect(withRetry(second, { sleep: async () => {} }).doGenerate({ ...request, signal: aborted })).rejects.toBe(
      reason,
    );
    expect(second.calls()).toBe(1);
  });

  it("a stream failing after some parts yields stream-reset, then the retry's parts", async () => {
    const inner = flakyModel([new ProviderServerError({ provider: "p", message: "mid-stream" })], 2);
    const parts: ModelStreamPart[] = [];
    for await (const part of withRetry(inner, { sleep: async () => {} }).doStream(request)) parts.push(part);
    expect(parts).toEqual([
      { type: "text-delta", text: "partial0" },
      { type: "text-delta", text: "partial1" },
      { type: "stream-reset", reason: "p: mid-stream" },
      { type: "text-delta", text: "ok" },
      { type: "finish", response: answer },
    ]);
  });

  it("abortableSleep resolves after the time and leaves no listener", async () => {
    const controller = new AbortController();
    await abortableSleep(1, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("withRetry reports each retry to the request's onNotice", () => {
  it.each([
    false,
    true,
  ])("stream: %s — attempt, error, the retry-after used and the wait; wire passed on", async (stream) => {
    const inner = {
      ...flakyModel([
        new RateLimitError({ provider: "flaky", message: "slow", status: 429, retryAfterMs: 1200 }),
        new ProviderServerError({ provider: "flaky", message: "boom", status: 500 }),
      ]),
      wire: { api: "openai-chat", modelId: "m" },
    };
    const notices: unknown[] = [];
    const model = withRetry(inner, { ...recorder(), initialDelayMs: 100, jitter: 0 });
    expect(model.wire).toEqual({ api: "openai-chat", modelId: "m" });
    const noticed = { ...request, onNotice: (notice: unknown) => void notices.push(notice) };
    if (stream) for await (const _part of model.doStream(noticed));
    else await model.doGenerate(noticed);
    expect(notices).toEqual([
      {
        type: "retry",
        model: "flaky:m",
        attempt: 1,
        error: expect.any(RateLimitError),
        retryAfterMs: 1200,
        delayMs: 1200,
      },
      { type: "retry", model: "flaky:m", attempt: 2, error: expect.any(ProviderServerError), delayMs: 200 },
    ]);
  });
});
