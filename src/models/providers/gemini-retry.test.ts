import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RateLimitError } from "../../errors/provider-error.js";
import { type RetryAttempt, withRetry } from "../retry.js";
import { createGeminiModel } from "./gemini.js";
import { parseRetryDelay } from "./gemini-errors.js";
import type { WireReply } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { collectStream, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver } from "./test-support/wire-fetch.js";

/** A 429 as the Gemini API sends it when a quota is exhausted: QuotaFailure, Help and RetryInfo details. */
function quotaExhausted(retryDelay: string, headers: Record<string, string> = {}): WireReply {
  return {
    status: 429,
    headers: { "content-type": "application/json; charset=UTF-8", ...headers },
    body: JSON.stringify({
      error: {
        code: 429,
        message: "You exceeded your current quota, please check your plan and billing details.",
        status: "RESOURCE_EXHAUSTED",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_requests" }],
          },
          { "@type": "type.googleapis.com/google.rpc.Help", links: [{ url: "https://ai.google.dev/gemini-api" }] },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
        ],
      },
    }),
  };
}

const model = (baseURL: string, fetch?: typeof globalThis.fetch) =>
  createGeminiModel("gemini-2.5-flash", { baseURL, apiKey: "k", ...(fetch === undefined ? {} : { fetch }) });

describe("parseRetryDelay (google.protobuf.Duration as JSON)", () => {
  it.each([
    ["34.4s", 34_400],
    ["22s", 22_000],
    ["10.689924287s", 10_690],
    ["0.000000001s", 1],
    ["0s", 0],
  ])("%s is %d ms (rounded up: never shorter than asked)", (text, ms) => {
    expect(parseRetryDelay(text)).toBe(ms);
  });
  it.each(["34", "-1s", "1.5m", "", "s", "1e3s", "NaNs"])("%j is not a duration", (text) => {
    expect(parseRetryDelay(text)).toBeUndefined();
  });
});

describe("Gemini RetryInfo: the delay Google asks for is retryAfterMs", () => {
  for (const mode of ["doGenerate", "doStream"] as const) {
    it(`429 with retryDelay "34.4s" via ${mode}`, async () => {
      const wire = createWireFetch(() => deliver(quotaExhausted("34.4s")));
      const gemini = model("http://wire.invalid", wire.fetch);
      const error =
        mode === "doGenerate"
          ? await gemini.doGenerate(suiteRequest("text")).catch((caught: unknown) => caught)
          : (await collectStream(gemini.doStream(suiteRequest("text")))).error;
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, retryAfterMs: 34_400, retryable: true });
    });
  }

  it("a retry-after header and a RetryInfo: the longer of the two is waited", async () => {
    for (const [header, expected] of [
      ["2", 5_000],
      ["9", 9_000],
    ] as const) {
      const wire = createWireFetch(() => deliver(quotaExhausted("5s", { "retry-after": header })));
      const error = await model("http://wire.invalid", wire.fetch)
        .doGenerate(suiteRequest("text"))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ retryAfterMs: expected });
    }
  });

  it("an error chunk inside a 200 stream carries its RetryInfo too", async () => {
    const body = quotaExhausted("3s").body;
    const wire = createWireFetch(() =>
      deliver({ status: 200, headers: { "content-type": "text/event-stream" }, body: `data: ${body}\r\n\r\n` }),
    );
    const { error } = await collectStream(model("http://wire.invalid", wire.fetch).doStream(suiteRequest("text")));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 3_000 });
  });

  it("a delay beyond maxRetryAfterMs fails at once, with retryAfterMs set and no wait", async () => {
    const wire = createWireFetch(() => deliver(quotaExhausted("34.4s")));
    const sleep = vi.fn(async () => {});
    const retrying = withRetry(model("http://wire.invalid", wire.fetch), { maxRetryAfterMs: 10_000, sleep });
    const error = await retrying.doGenerate(suiteRequest("text")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 34_400 });
    expect(wire.requests).toHaveLength(1);
    expect(sleep).not.toHaveBeenCalled();
  });
});

describe("Gemini RetryInfo through withRetry over HTTP", () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(async () => {
    await server.close();
  });

  // The default policy waits 500 ms ± 20 % before a first retry: a 1.2 s request is told apart.
  const requestedMs = 1_200;

  for (const mode of ["doGenerate", "doStream"] as const) {
    it(`${mode}: the measured gap between the 429 and the retry is the requested delay (no jitter on it)`, async () => {
      server.reset();
      const arrivals: number[] = [];
      const stamp = (reply: WireReply) => () => {
        arrivals.push(performance.now());
        return reply;
      };
      server.enqueue(
        stamp(quotaExhausted(`${requestedMs / 1000}s`)),
        stamp(geminiFixture.reply("text", mode === "doStream")),
      );
      const retries: RetryAttempt[] = [];
      const retrying = withRetry(model(server.url), { onRetry: (attempt) => retries.push(attempt) });
      if (mode === "doGenerate") {
        await retrying.doGenerate(suiteRequest("text"));
      } else {
        const { error } = await collectStream(retrying.doStream(suiteRequest("text")));
        expect(error).toBeUndefined();
      }
      expect(retries.map((retry) => retry.delayMs)).toEqual([requestedMs]);
      const [first = 0, second = 0] = arrivals;
      const gap = second - first;
      expect(gap).toBeGreaterThanOrEqual(requestedMs - 5); // timers may fire a hair early
      expect(gap).toBeLessThan(requestedMs + 1_000); // generous: a loaded machine schedules late
    });
  }
});
