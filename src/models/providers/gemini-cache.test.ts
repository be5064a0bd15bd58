/**
 * Gemini prompt caching against a local Gemini API server: implicit caching sends nothing, an
 * explicit cache (`cache.cachedContent`) is named in the body without the instructions, tools and
 * tool config the cache holds (JSON and streaming requests, multi-turn), nothing when turned off;
 * `cachedContentTokenCount` read from JSON and SSE replies as the API sends them, the run's usage
 * and cost; bodies rebuilt from the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import type { EventOf } from "../../session/events.js";
import type { ModelSettings } from "../model.js";
import { createGeminiModel } from "./gemini.js";
import { getWeather, rebuiltBodies, receivedBodies, runAgent } from "./test-support/cache-support.js";
import type { WireReply } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";

const MODEL = "gemini-2.5-flash";
const CACHE = "cachedContents/weather-handbook-7b2f";

const usageMetadata = (prompt: number, cached: number, final: boolean) => ({
  promptTokenCount: prompt,
  ...(final ? { candidatesTokenCount: 10, totalTokenCount: prompt + 10 } : { totalTokenCount: prompt }),
  ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
  promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  ...(cached > 0 ? { cacheTokensDetails: [{ modality: "TEXT", tokenCount: cached }] } : {}),
});

function chunk(parts: unknown[], prompt: number, cached: number, final: boolean) {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (final) candidate.finishReason = "STOP";
  candidate.index = 0;
  return {
    candidates: [candidate],
    usageMetadata: usageMetadata(prompt, cached, final),
    modelVersion: MODEL,
    responseId: "mAitaLmkHPPlz7IPvtfUqQ4",
  };
}

const callPart = { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "CiQBVKhc" };

function reply(kind: "call" | "text", stream: boolean, prompt: number, cached: number): WireReply {
  const parts = kind === "call" ? [callPart] : [{ text: "Sunny, " }, { text: "21°C." }];
  if (!stream) {
    return {
      status: 200,
      headers: { "content-type": "application/json; charset=UTF-8" },
      body: JSON.stringify(chunk(parts, prompt, cached, true)),
    };
  }
  const chunks =
    kind === "call"
      ? [chunk(parts, prompt, cached, true)]
      : [chunk([parts[0]], prompt, cached, false), chunk([parts[1]], prompt, cached, true)];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body: chunks.map((data) => `data: ${JSON.stringify(data)}\r\n\r\n`).join(""),
  };
}

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

const agentWith = (settings: ModelSettings) =>
  new Agent({
    model: createGeminiModel(MODEL, { baseURL: server.url, apiKey: "gemini-test-key", env: {} }),
    instructions: "You answer about the weather.",
    tools: [getWeather],
    settings,
  });

const run = runAgent;
const bodies = () => receivedBodies(server);

describe.each([false, true])("Gemini caching (stream: %s)", (stream) => {
  it("names an explicit cache and leaves out what it holds; cachedContentTokenCount is counted", async () => {
    server.reset();
    server.enqueue(reply("call", stream, 3000, 2048), reply("text", stream, 3100, 2048));
    const result = await run(
      agentWith({ cache: { cachedContent: CACHE } }),
      "Weather in Paris?",
      stream,
      `explicit-${stream}`,
    );
    expect(result.output).toBe("Sunny, 21°C.");
    expect(server.requests.map((request) => request.path)).toEqual(
      Array(2).fill(`/v1beta/models/${MODEL}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`),
    );
    const [first, second] = bodies();
    for (const body of [first, second]) {
      expect(body?.cachedContent).toBe(CACHE);
      expect(body).not.toHaveProperty("systemInstruction");
      expect(body).not.toHaveProperty("tools");
      expect(body).not.toHaveProperty("toolConfig");
    }
    expect(second?.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [callPart] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { output: { city: "Paris", temp: 21 } } } }],
      },
    ]);
    const responses = result.log.filter((event): event is EventOf<"model_response"> => event.type === "model_response");
    expect(responses.map((event) => event.data.usage)).toEqual([
      { inputTokens: 3000, outputTokens: 10, totalTokens: 3010, cachedInputTokens: 2048 },
      { inputTokens: 3100, outputTokens: 10, totalTokens: 3110, cachedInputTokens: 2048 },
    ]);
    expect(result.usage).toMatchObject({
      requests: 2,
      inputTokens: 6100,
      cachedInputTokens: 4096,
      cacheWriteTokens: 0,
    });
    // genai-prices: gemini-2.5-flash input 0.3, cache read 0.03, output 2.5 per million.
    const perMillion = (tokens: number, usd: number) => (tokens * usd) / 1e6;
    expect(result.cost.usd).toBeCloseTo(
      perMillion(6100 - 4096, 0.3) + perMillion(4096, 0.03) + perMillion(20, 2.5),
      12,
    );
    expect(rebuiltBodies(result.log)).toEqual(bodies());
  });

  it("implicit caching (the default) sends the whole request and no cache field; turned off, no cache name either", async () => {
    server.reset();
    server.enqueue(reply("text", stream, 1200, 1024), reply("text", stream, 1200, 0));
    const implicit = await run(agentWith({}), "Hi", stream, `implicit-${stream}`);
    await run(
      agentWith({
        cache: { enabled: false, cachedContent: CACHE },
        providerOptions: { gemini: { cachedContent: CACHE } },
      }),
      "Hi",
      stream,
      `off-${stream}`,
    );
    const [plain, off] = bodies();
    for (const body of [plain, off]) {
      expect(body).not.toHaveProperty("cachedContent");
      expect(body?.systemInstruction).toEqual({ parts: [{ text: "You answer about the weather." }] });
      expect(body?.tools).toEqual([{ functionDeclarations: [expect.objectContaining({ name: "get_weather" })] }]);
      expect(body?.toolConfig).toEqual({ functionCallingConfig: { mode: "AUTO" } });
    }
    expect(implicit.usage).toMatchObject({ inputTokens: 1200, cachedInputTokens: 1024 });
  });
});
