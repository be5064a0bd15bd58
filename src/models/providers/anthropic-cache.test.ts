/**
 * Anthropic prompt caching against a local Messages API server: where the `cache_control`
 * breakpoints go (JSON and streaming requests, with tools and a multi-turn history), that they are
 * off by default and when turned off, the cache token counts read from JSON and SSE replies as the
 * API sends them, and the run's usage and cost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import type { EventOf } from "../../session/events.js";
import type { Message } from "../../session/messages.js";
import type { ModelSettings } from "../model.js";
import { createAnthropicModel } from "./anthropic.js";
import { buildAnthropicRequest } from "./anthropic-request.js";
import { getTime, getWeather, rebuiltBodies, receivedBodies, runAgent } from "./test-support/cache-support.js";
import type { WireReply } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";

const MODEL = "claude-sonnet-4-5-20250929";
const EPHEMERAL = { type: "ephemeral" };
/** Anthropic's usage with a cache: `input_tokens` counts only what came after the last breakpoint. */
const wireUsage = (read: number, written: number) => ({
  input_tokens: 21,
  cache_creation_input_tokens: written,
  cache_read_input_tokens: read,
  cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 },
  output_tokens: 12,
  service_tier: "standard",
});

function jsonReply(content: unknown[], stopReason: string, read: number, written: number): WireReply {
  return {
    status: 200,
    headers: { "content-type": "application/json", "request-id": "req_011CS" },
    body: JSON.stringify({
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      model: MODEL,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: wireUsage(read, written),
    }),
  };
}

const sseEvent = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** A streamed text answer; `message_start` and the final `message_delta` both carry the cache counts. */
function sseText(text: string, read: number, written: number): WireReply {
  const usage = wireUsage(read, written);
  const message = { id: "msg_01", type: "message", role: "assistant", model: MODEL, content: [] };
  const body = [
    sseEvent("message_start", {
      type: "message_start",
      message: { ...message, stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
    sseEvent("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
    sseEvent("ping", { type: "ping" }),
    sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    sseEvent("content_block_stop", { type: "content_block_stop", index: 0 }),
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: {
        input_tokens: 21,
        cache_creation_input_tokens: written,
        cache_read_input_tokens: read,
        output_tokens: 12,
      },
    }),
    sseEvent("message_stop", { type: "message_stop" }),
  ].join("");
  return { status: 200, headers: { "content-type": "text/event-stream" }, body };
}

/** A streamed tool call, with the cache counts in `message_start` only (as older API versions send them). */
function sseToolUse(read: number, written: number): WireReply {
  const message = { id: "msg_02", type: "message", role: "assistant", model: MODEL, content: [] };
  const body = [
    sseEvent("message_start", {
      type: "message_start",
      message: {
        ...message,
        stop_reason: null,
        stop_sequence: null,
        usage: { ...wireUsage(read, written), output_tokens: 1 },
      },
    }),
    sseEvent("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} },
    }),
    sseEvent("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"city": "Paris"}' },
    }),
    sseEvent("content_block_stop", { type: "content_block_stop", index: 0 }),
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 12 },
    }),
    sseEvent("message_stop", { type: "message_stop" }),
  ].join("");
  return { status: 200, headers: { "content-type": "text/event-stream" }, body };
}

const toolUseBlock = { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } };
const toolUseReply = (stream: boolean, read: number, written: number) =>
  stream ? sseToolUse(read, written) : jsonReply([toolUseBlock], "tool_use", read, written);
const textReply = (stream: boolean, text: string, read: number, written: number) =>
  stream ? sseText(text, read, written) : jsonReply([{ type: "text", text }], "end_turn", read, written);

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

function agentWith(settings: ModelSettings) {
  return new Agent({
    model: createAnthropicModel("claude-sonnet-4-5", { baseURL: server.url, apiKey: "sk-ant-test", env: {} }),
    instructions: "You answer about the weather.",
    tools: [getWeather, getTime],
    settings,
  });
}

const run = runAgent;
const bodies = () => receivedBodies(server);

describe.each([false, true])("Anthropic cache breakpoints (stream: %s)", (stream) => {
  it("marks the last tool, the system prompt and the history before the new turn; usage and cost count the cache", async () => {
    server.reset();
    server.enqueue(toolUseReply(stream, 0, 1800), textReply(stream, "Sunny, 21°C.", 1800, 90));
    const agent = agentWith({ cache: { enabled: true } });
    const result = await run(agent, "Weather in Paris?", stream, `anthropic-cache-${stream}`);
    expect(result.output).toBe("Sunny, 21°C.");

    const [first, second] = bodies();
    const markedTools = [
      expect.objectContaining({ name: "get_weather" }),
      expect.objectContaining({ name: "get_time", cache_control: EPHEMERAL }),
    ];
    const system = [{ type: "text", text: "You answer about the weather.", cache_control: EPHEMERAL }];
    expect(first?.tools).toEqual(markedTools);
    expect((first?.tools as Record<string, unknown>[])[0]).not.toHaveProperty("cache_control");
    expect(first?.system).toEqual(system);
    // The first request's only turn is the new one: no history to mark.
    expect(first?.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }]);
    expect(first?.stream).toBe(stream ? true : undefined);

    expect(second?.tools).toEqual(markedTools);
    expect(second?.system).toEqual(system);
    expect(second?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      { role: "assistant", content: [{ ...toolUseBlock, cache_control: EPHEMERAL }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01", content: '{"city":"Paris","temp":21}' }],
      },
    ]);
    expect(JSON.stringify(second).match(/cache_control/g)).toHaveLength(3);

    // input_tokens leaves the cache out; the normalized count is the whole prompt.
    const responses = result.log.filter((event): event is EventOf<"model_response"> => event.type === "model_response");
    expect(responses.map((event) => event.data.usage)).toEqual([
      { inputTokens: 21 + 1800, outputTokens: 12, totalTokens: 1833, cachedInputTokens: 0, cacheWriteTokens: 1800 },
      {
        inputTokens: 21 + 1800 + 90,
        outputTokens: 12,
        totalTokens: 1923,
        cachedInputTokens: 1800,
        cacheWriteTokens: 90,
      },
    ]);
    expect(result.usage).toMatchObject({
      requests: 2,
      inputTokens: 1821 + 1911,
      cachedInputTokens: 1800,
      cacheWriteTokens: 1890,
      outputTokens: 24,
    });
    // genai-prices: claude-sonnet-4-5 input 3, cache write 3.75, cache read 0.3, output 15 per million.
    const perMillion = (tokens: number, usd: number) => (tokens * usd) / 1e6;
    const expected = perMillion(21 + 21, 3) + perMillion(1890, 3.75) + perMillion(1800, 0.3) + perMillion(24, 15);
    expect(result.cost.usd).toBeCloseTo(expected, 12);
    expect(responses[1]?.data.cost).toMatchObject({
      cacheReadUsd: expect.closeTo(perMillion(1800, 0.3), 12),
      cacheWriteUsd: expect.closeTo(perMillion(90, 3.75), 12),
    });

    // The log rebuilds both bodies, breakpoints included.
    expect(rebuiltBodies(result.log)).toEqual(bodies());
  });

  it("sends no breakpoint by default (cache writes cost extra) nor when turned off", async () => {
    const choices = [{}, { cache: { enabled: false } }, { cache: { enabled: false, retention: "long" } }] as const;
    for (const [index, settings] of choices.entries()) {
      server.reset();
      server.enqueue(toolUseReply(stream, 0, 0), textReply(stream, "Sunny.", 0, 0));
      const result = await run(agentWith(settings), "Weather in Paris?", stream, `anthropic-off-${stream}-${index}`);
      for (const body of bodies()) {
        expect(JSON.stringify(body)).not.toContain("cache_control");
        expect(body.system).toBe("You answer about the weather.");
      }
      expect(result.usage).toMatchObject({ cachedInputTokens: 0, cacheWriteTokens: 0 });
    }
  });

  it('retention "long" asks for the one-hour cache on every breakpoint', async () => {
    server.reset();
    server.enqueue(toolUseReply(stream, 0, 0), textReply(stream, "Sunny.", 0, 0));
    const result = await run(
      agentWith({ cache: { retention: "long", enabled: true } }),
      "Hi",
      stream,
      `long-${stream}`,
    );
    const second = bodies()[1];
    const hour = { type: "ephemeral", ttl: "1h" };
    expect((second?.tools as Record<string, unknown>[])[1]?.cache_control).toEqual(hour);
    expect((second?.system as Record<string, unknown>[])[0]?.cache_control).toEqual(hour);
    expect((second?.messages as { content: Record<string, unknown>[] }[])[1]?.content[0]?.cache_control).toEqual(hour);
    expect(rebuiltBodies(result.log)).toEqual(bodies());
  });
});

describe("Anthropic breakpoint placement", () => {
  const cached = { cache: { enabled: true } } as const;
  /** The turn before the new one ends in a thinking block, which cannot carry `cache_control`. */
  const thinkingHistory: Message[] = [
    { role: "user", content: "Hi" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Hello." },
        { type: "reasoning", text: "Thinking.", providerMetadata: { anthropic: { signature: "sig" } } },
      ],
    },
    { role: "user", content: "Weather?" },
  ];

  it("skips thinking blocks, marks the turn before the new one, and never exceeds four breakpoints", () => {
    const { body } = buildAnthropicRequest(
      {
        instructions: "Be brief.",
        messages: thinkingHistory,
        tools: [],
        settings: {
          ...cached,
          providerOptions: {
            anthropic: {
              tools: [
                { type: "web_search_20250305", name: "web_search", cache_control: EPHEMERAL },
                { type: "web_fetch_20250910", name: "web_fetch", cache_control: EPHEMERAL },
                { type: "code_execution_20250825", name: "code_execution", cache_control: EPHEMERAL },
              ],
            },
          },
        },
      },
      { modelId: "claude-sonnet-4-5", stream: false, structuredOutput: "native" },
    );
    // Three breakpoints were the caller's: only the system prompt gets the fourth.
    expect(body.system).toEqual([{ type: "text", text: "Be brief.", cache_control: EPHEMERAL }]);
    expect(JSON.stringify(body.messages)).not.toContain("cache_control");
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(4);

    const { body: plain } = buildAnthropicRequest(
      {
        messages: thinkingHistory,
        tools: [],
        settings: cached,
      },
      { modelId: "claude-sonnet-4-5", stream: false, structuredOutput: "native" },
    );
    expect(plain.system).toBeUndefined();
    expect((plain.messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Hello.", cache_control: EPHEMERAL },
        { type: "thinking", thinking: "Thinking.", signature: "sig" },
      ],
    });
  });
});
