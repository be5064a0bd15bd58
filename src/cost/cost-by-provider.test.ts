/**
 * Costs recorded on `model_response`, from each provider's wire usage through its adapter's
 * normalization to the price data. Every expected figure is worked out by hand below from the
 * per-million prices of genai-prices 0.1.8:
 *   gpt-4o             input 2.5, cache read 1.25, output 10
 *   gpt-5              input 1.25, cache read 0.125, output 10
 *   claude-sonnet-4-5  input 3, cache write 3.75, cache read 0.3, output 15 (up to 200k input);
 *                      6, 7.5, 0.6, 22.5 above 200k input
 *   gemini-2.5-flash   input 0.3, cache read 0.03, output 2.5
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import type { Model } from "../models/model.js";
import { createAnthropicModel } from "../models/providers/anthropic.js";
import { createGeminiModel } from "../models/providers/gemini.js";
import { createOpenAIChatModel } from "../models/providers/openai-chat.js";
import { createOpenAIResponsesModel } from "../models/providers/openai-responses.js";
import { createWireFetch } from "../models/providers/test-support/wire-fetch.js";
import type { SessionEvent } from "../session/events.js";
import type { RecordedCost } from "./recorded-cost.js";

const BASE = "http://fake.test";
/** USD of `tokens` at `perMillion` USD per million tokens. */
const usd = (tokens: number, perMillion: number) => (tokens * perMillion) / 1_000_000;

function answering(body: unknown) {
  return createWireFetch(() => ({
    status: 200,
    headers: { "content-type": "application/json" },
    chunks: [Buffer.from(JSON.stringify(body))],
  })).fetch;
}

async function recordedCost(model: Model): Promise<{ cost: RecordedCost | undefined; event: SessionEvent }> {
  const result = await new Agent({ model }).run("hello");
  const event = result.log.find((candidate) => candidate.type === "model_response") as SessionEvent;
  return { cost: (event.data as { cost?: RecordedCost }).cost, event };
}

/** Each part to 12 decimals (what the recorded figures are rounded to). */
function expectCost(actual: RecordedCost | undefined, expected: RecordedCost): void {
  expect(Object.keys(actual ?? {}).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, value] of Object.entries(expected)) {
    const got = (actual as unknown as Record<string, unknown>)[key];
    if (typeof value === "number") expect(got).toBeCloseTo(value, 12);
    else expect(got).toBe(value);
  }
}

describe("the cost of a response, from each provider's wire usage", () => {
  it("OpenAI Chat Completions: prompt_tokens includes cached_tokens, priced at the cache-read rate", async () => {
    const fetch = answering({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_741_476_542,
      model: "gpt-4o-2024-08-06",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi." }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 500,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    const { cost, event } = await recordedCost(
      createOpenAIChatModel("gpt-4o", { baseURL: `${BASE}/v1`, apiKey: "k", fetch, env: {} }),
    );
    expect((event.data as { model: string }).model).toBe("openai-chat:gpt-4o-2024-08-06");
    // 600 uncached + 400 cached input, 500 output.
    expectCost(cost, {
      source: "genai-prices@0.1.8",
      priceModel: "openai:gpt-4o",
      usd: usd(600, 2.5) + usd(400, 1.25) + usd(500, 10), // 0.0015 + 0.0005 + 0.005 = 0.007
      inputUsd: usd(600, 2.5),
      cacheReadUsd: usd(400, 1.25),
      outputUsd: usd(500, 10),
    });
    expect(cost?.usd).toBeCloseTo(0.007, 12);
  });

  it("OpenAI Responses: input_tokens includes cached, output_tokens includes reasoning", async () => {
    const fetch = answering({
      id: "resp_1",
      object: "response",
      created_at: 1_741_476_542,
      status: "completed",
      error: null,
      incomplete_details: null,
      model: "gpt-5-2025-08-07",
      output: [
        {
          type: "message",
          id: "msg_1",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Hi.", annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 2000,
        input_tokens_details: { cached_tokens: 1200 },
        output_tokens: 900,
        output_tokens_details: { reasoning_tokens: 600 },
        total_tokens: 2900,
      },
    });
    const { cost } = await recordedCost(
      createOpenAIResponsesModel("gpt-5", { baseURL: `${BASE}/v1`, apiKey: "k", fetch, env: {} }),
    );
    // 800 uncached + 1200 cached input; 300 answer + 600 reasoning output, both at the output price.
    expectCost(cost, {
      source: "genai-prices@0.1.8",
      priceModel: "openai:gpt-5",
      usd: 0.001 + 0.00015 + 0.003 + 0.006,
      inputUsd: usd(800, 1.25), // 0.001
      cacheReadUsd: usd(1200, 0.125), // 0.00015
      outputUsd: usd(300, 10), // 0.003
      reasoningUsd: usd(600, 10), // 0.006
    });
  });

  it("Anthropic: input_tokens leaves out cache reads and writes; each is priced at its own rate", async () => {
    const fetch = answering({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: "Hi." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 2000,
        output_tokens: 500,
      },
    });
    const { cost, event } = await recordedCost(
      createAnthropicModel("claude-sonnet-4-5", { baseURL: BASE, apiKey: "k", fetch }),
    );
    expect((event.data as { usage: unknown }).usage).toEqual({
      inputTokens: 3100,
      outputTokens: 500,
      totalTokens: 3600,
      cachedInputTokens: 2000,
      cacheWriteTokens: 1000,
    });
    expectCost(cost, {
      source: "genai-prices@0.1.8",
      priceModel: "anthropic:claude-sonnet-4-5",
      usd: 0.0003 + 0.0006 + 0.00375 + 0.0075, // 0.01215
      inputUsd: usd(100, 3), // 0.0003
      cacheReadUsd: usd(2000, 0.3), // 0.0006
      cacheWriteUsd: usd(1000, 3.75), // 0.00375
      outputUsd: usd(500, 15), // 0.0075
    });
  });

  it("Anthropic above 200k prompt tokens: every part at the long-context rate", async () => {
    const fetch = answering({
      id: "msg_2",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "Hi." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 150_000,
        cache_creation_input_tokens: 50_000,
        cache_read_input_tokens: 50_000,
        output_tokens: 1000,
      },
    });
    const { cost } = await recordedCost(
      createAnthropicModel("claude-sonnet-4-5", { baseURL: BASE, apiKey: "k", fetch }),
    );
    // 250,000 prompt tokens > 200,000: input 6, cache write 7.5, cache read 0.6, output 22.5.
    expectCost(cost, {
      source: "genai-prices@0.1.8",
      priceModel: "anthropic:claude-sonnet-4-5",
      usd: 0.9 + 0.375 + 0.03 + 0.0225, // 1.3275
      inputUsd: usd(150_000, 6), // 0.9
      cacheReadUsd: usd(50_000, 0.6), // 0.03
      cacheWriteUsd: usd(50_000, 7.5), // 0.375
      outputUsd: usd(1000, 22.5), // 0.0225
    });
  });

  it("Gemini: promptTokenCount includes cached tokens; candidatesTokenCount leaves out thoughts", async () => {
    const fetch = answering({
      candidates: [{ content: { parts: [{ text: "Hi." }], role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: {
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        candidatesTokenCount: 200,
        thoughtsTokenCount: 300,
        totalTokenCount: 1500,
      },
      modelVersion: "gemini-2.5-flash",
      responseId: "r1",
    });
    const { cost, event } = await recordedCost(
      createGeminiModel("gemini-2.5-flash", { baseURL: BASE, apiKey: "k", fetch }),
    );
    expect((event.data as { usage: unknown }).usage).toEqual({
      inputTokens: 1000,
      outputTokens: 500,
      totalTokens: 1500,
      cachedInputTokens: 800,
      reasoningTokens: 300,
    });
    expectCost(cost, {
      source: "genai-prices@0.1.8",
      priceModel: "google:gemini-2.5-flash",
      usd: 0.00006 + 0.000024 + 0.0005 + 0.00075, // 0.001334
      inputUsd: usd(200, 0.3), // 0.00006
      cacheReadUsd: usd(800, 0.03), // 0.000024
      outputUsd: usd(200, 2.5), // 0.0005
      reasoningUsd: usd(300, 2.5), // 0.00075
    });
  });
});
