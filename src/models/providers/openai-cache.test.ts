/**
 * OpenAI prompt caching against local Chat Completions and Responses servers: `prompt_cache_key`
 * on by default for OpenAI's endpoints (JSON and streaming requests, with tools, over a multi-turn
 * session), its override, `prompt_cache_retention`, off when turned off and for other Chat
 * Completions servers unless asked for; cached tokens read from JSON and SSE replies as the APIs
 * send them; the run's usage and cost; bodies rebuilt from the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import type { EventOf } from "../../session/events.js";
import type { Model, ModelSettings } from "../model.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import { createOpenAICompatibleModel } from "./openai-compatible.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import { getWeather, rebuiltBodies, receivedBodies, runAgent } from "./test-support/cache-support.js";
import type { WireReply } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";

const json = (body: unknown): WireReply => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const sse = (events: unknown[], done: boolean): WireReply => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : ""),
});

// Chat Completions, as documented: usage in the body, or in a last chunk without choices.
const chatUsage = (prompt: number, cached: number) => ({
  prompt_tokens: prompt,
  completion_tokens: 10,
  total_tokens: prompt + 10,
  prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
});
const chatBase = {
  id: "chatcmpl-B9MHD",
  created: 1_741_570_283,
  model: "gpt-4o-2024-08-06",
  system_fingerprint: "fp_f9f4fb6dbf",
};
const chatCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };

function chatReply(kind: "call" | "text", stream: boolean, prompt: number, cached: number): WireReply {
  const usage = chatUsage(prompt, cached);
  const finish = kind === "call" ? "tool_calls" : "stop";
  if (!stream) {
    const message =
      kind === "call"
        ? { role: "assistant", content: null, tool_calls: [chatCall], refusal: null, annotations: [] }
        : { role: "assistant", content: "Sunny.", refusal: null, annotations: [] };
    return json({
      ...chatBase,
      object: "chat.completion",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage,
      service_tier: "default",
    });
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = { usage: null }) => ({
    ...chatBase,
    object: "chat.completion.chunk",
    choices,
    ...extra,
  });
  const delta =
    kind === "call"
      ? { role: "assistant", content: null, tool_calls: [{ index: 0, ...chatCall }] }
      : { role: "assistant", content: "Sunny." };
  return sse(
    [
      chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]),
      chunk([], { usage }),
    ],
    true,
  );
}

// Responses API, as documented: a response object, or semantic events ending in response.completed.
const responsesUsage = (input: number, cached: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: 10,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + 10,
});
const responsesItem = (kind: "call" | "text") =>
  kind === "call"
    ? {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      }
    : {
        type: "message",
        id: "msg_1",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Sunny.", annotations: [] }],
      };

function responsesReply(kind: "call" | "text", stream: boolean, input: number, cached: number): WireReply {
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: "resp_67ccd2bed1ec8190",
    object: "response",
    created_at: 1_741_476_542,
    status,
    error: null,
    incomplete_details: null,
    model: "gpt-5-mini-2025-08-07",
    output,
    prompt_cache_key: "echoed",
    usage,
  });
  const item = responsesItem(kind);
  if (!stream) return json(response("completed", [item], responsesUsage(input, cached)));
  return sse(
    [
      { type: "response.created", sequence_number: 0, response: response("in_progress", [], null) },
      {
        type: "response.output_item.added",
        sequence_number: 1,
        output_index: 0,
        item: { ...item, status: "in_progress" },
      },
      { type: "response.output_item.done", sequence_number: 2, output_index: 0, item },
      {
        type: "response.completed",
        sequence_number: 3,
        response: response("completed", [item], responsesUsage(input, cached)),
      },
    ],
    false,
  );
}

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

const connection = () => ({ baseURL: `${server.url}/v1`, apiKey: "sk-test", env: {} });
const dialects = [
  { name: "chat", model: () => createOpenAIChatModel("gpt-4o", connection()), reply: chatReply, input: "messages" },
  {
    name: "responses",
    model: () => createOpenAIResponsesModel("gpt-5-mini", connection()),
    reply: responsesReply,
    input: "input",
  },
] as const;

const run = runAgent;
const bodies = () => receivedBodies(server);
const agentOf = (model: Model, settings: ModelSettings = {}, instructions = "You answer about the weather.") =>
  new Agent({ model, instructions, tools: [getWeather], settings });

describe.each(dialects)("OpenAI $name: prompt_cache_key", (dialect) => {
  describe.each([false, true])("stream: %s", (stream) => {
    it("is on by default: one key per agent definition, on every request of a multi-turn session; cached tokens counted", async () => {
      server.reset();
      server.enqueue(
        dialect.reply("call", stream, 1200, 0),
        dialect.reply("text", stream, 1300, 1152),
        dialect.reply("text", stream, 1400, 1280),
      );
      const agent = agentOf(dialect.model());
      const first = await run(agent, "Weather in Paris?", stream, `openai-${dialect.name}-${stream}`);
      const second = await run(agent, "And tomorrow?", stream, `openai-${dialect.name}-${stream}`);
      const sent = bodies();
      expect(sent).toHaveLength(3);
      const key = sent[0]?.prompt_cache_key;
      expect(key).toMatch(/^nous-[0-9a-f]{32}$/);
      for (const body of sent) {
        expect(body.prompt_cache_key).toBe(key);
        expect(body).not.toHaveProperty("prompt_cache_retention");
        expect(body.stream).toBe(stream ? true : undefined);
      }
      expect((sent[2]?.[dialect.input] as unknown[]).length).toBeGreaterThan(
        (sent[0]?.[dialect.input] as unknown[]).length,
      );

      const usages = [...first.log, ...second.log.slice(first.log.length)]
        .filter((event): event is EventOf<"model_response"> => event.type === "model_response")
        .map((event) => event.data.usage);
      expect(usages.map((usage) => usage.cachedInputTokens)).toEqual([0, 1152, 1280]);
      expect(first.usage).toMatchObject({
        requests: 2,
        inputTokens: 2500,
        cachedInputTokens: 1152,
        cacheWriteTokens: 0,
      });
      expect(second.usage).toMatchObject({ requests: 1, inputTokens: 1400, cachedInputTokens: 1280 });
      // The log rebuilds every body, key included.
      expect(rebuiltBodies(second.log)).toEqual(sent);

      // Another agent definition (other instructions) gets another key.
      server.reset();
      server.enqueue(dialect.reply("text", stream, 10, 0));
      await run(agentOf(dialect.model(), {}, "Other instructions."), "Hi", stream, `other-${dialect.name}-${stream}`);
      expect(bodies()[0]?.prompt_cache_key).toMatch(/^nous-[0-9a-f]{32}$/);
      expect(bodies()[0]?.prompt_cache_key).not.toBe(key);
    });

    it('takes the key given, sends prompt_cache_retention "24h" for long retention, and nothing when turned off', async () => {
      server.reset();
      server.enqueue(dialect.reply("text", stream, 10, 0), dialect.reply("text", stream, 10, 0));
      const keyed = await run(
        agentOf(dialect.model(), { cache: { key: "user-42", retention: "long" } }),
        "Hi",
        stream,
        `keyed-${dialect.name}-${stream}`,
      );
      await run(
        agentOf(dialect.model(), { cache: { enabled: false, key: "ignored" } }),
        "Hi",
        stream,
        `off-${dialect.name}-${stream}`,
      );
      const [given, off] = bodies();
      expect(given).toMatchObject({ prompt_cache_key: "user-42", prompt_cache_retention: "24h" });
      expect(off).not.toHaveProperty("prompt_cache_key");
      expect(off).not.toHaveProperty("prompt_cache_retention");
      expect(rebuiltBodies(keyed.log)).toEqual([given]);
    });
  });
});

describe("OpenAI-compatible servers", () => {
  it("get no cache key unless caching is turned on (some reject unknown fields); providerOptions still win", async () => {
    server.reset();
    server.enqueue(chatReply("text", false, 10, 0), chatReply("text", false, 10, 0), chatReply("text", false, 10, 0));
    const groq = () => createOpenAICompatibleModel("groq", "llama-3.3-70b-versatile", connection());
    await runAgent(agentOf(groq()), "Hi", false);
    const on = await runAgent(agentOf(groq(), { cache: { enabled: true } }), "Hi", false);
    const overriding = agentOf(createOpenAIChatModel("gpt-4o", connection()), {
      cache: { key: "from-settings" },
      providerOptions: { "openai-chat": { prompt_cache_key: "from-provider-options" } },
    });
    await runAgent(overriding, "Hi", false);
    const [plain, enabled, overridden] = bodies();
    expect(plain).not.toHaveProperty("prompt_cache_key");
    expect(enabled?.prompt_cache_key).toMatch(/^nous-[0-9a-f]{32}$/);
    expect(overridden?.prompt_cache_key).toBe("from-provider-options");
    expect(rebuiltBodies(on.log)).toEqual([enabled]);
  });
});
