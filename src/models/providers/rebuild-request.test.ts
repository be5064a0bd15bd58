/**
 * Acceptance: for agent runs against each provider's wire-format server (tools, structured output
 * in native and tool mode, reasoning, retries, a fallback across two providers; streaming and not),
 * `rebuildRequest(log, seq)` equals every body the server received — with the log read back from a
 * real SQLite store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import { RequestRebuildError } from "../../errors/request-rebuild-error.js";
import { OUTPUT_TOOL_NAME } from "../../runner/output-spec.js";
import type { EventOf, SessionEvent } from "../../session/events.js";
import { MemoryStore } from "../../store/memory-store.js";
import type { SessionStore } from "../../store/session-store.js";
import { SqliteStore } from "../../store/sqlite-store.js";
import { tool } from "../../tools/tool.js";
import { ScriptedModel } from "../scripted-model.js";
import { rebuildRequest } from "./rebuild-request.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import type { DialectFixture, WireReply } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";

const fixtures: readonly DialectFixture[] = [
  openAIChatFixture,
  openAIResponsesFixture,
  anthropicFixture,
  geminiFixture,
];

const getWeather = tool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temp: 21 }),
});
const getTime = tool({
  name: "get_time",
  description: "Time in a zone",
  input: z.object({ zone: z.string() }),
  execute: () => "12:00",
});

const waits: number[] = [];
const retry = {
  maxRetries: 2,
  initialDelayMs: 100,
  jitter: 0,
  sleep: async (ms: number) => {
    waits.push(ms);
  },
};

/** A reply with a request id header, as the APIs send one. */
const withId = (reply: WireReply, id: string): WireReply => ({
  ...reply,
  headers: { ...reply.headers, "x-request-id": id },
});

/** The fixture's tool-call reply, naming the agent's output tool instead (structured output in tool mode). */
const outputToolReply = (fixture: DialectFixture, stream: boolean): WireReply => {
  const reply = fixture.reply("tool-call", stream);
  return { ...reply, body: reply.body.replaceAll("get_weather", OUTPUT_TOOL_NAME) };
};

/**
 * The bodies the log says were sent, in order, with the wire format each went out over: one per
 * `model_request` and per `model_fallback` (rebuilt), and a retry sends the body before it again.
 */
function bodiesOf(log: readonly SessionEvent[]): { api: string; body: unknown }[] {
  const sent: { api: string; body: unknown }[] = [];
  let current: { api: string; body: unknown } | undefined;
  for (const event of log) {
    if (event.type === "model_request" || event.type === "model_fallback") {
      const wire = (event as EventOf<"model_request"> | EventOf<"model_fallback">).data.wire;
      current = { api: wire?.api ?? "none", body: JSON.parse(JSON.stringify(rebuildRequest(log, event.seq))) };
      sent.push(current);
    } else if (event.type === "model_retry" && current !== undefined) {
      sent.push(current);
    }
  }
  return sent;
}

function expectRebuilt(log: readonly SessionEvent[], servers: Record<string, FakeServer>): void {
  const sent = bodiesOf(log);
  for (const [api, server] of Object.entries(servers)) {
    const expected = sent.filter((body) => body.api === api).map((body) => body.body);
    expect(server.requests.map((request) => request.body)).toEqual(expected);
  }
  expect(sent.length).toBe(Object.values(servers).reduce((sum, server) => sum + server.requests.length, 0));
}

const apiOf: Record<string, string> = {
  "openai-chat": "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

let server: FakeServer;
let second: FakeServer;
const sqlite = new SqliteStore({ path: ":memory:" });
beforeAll(async () => {
  server = await startFakeServer();
  second = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await second.close();
  await sqlite.close();
});

function modelOf(fixture: DialectFixture, on: FakeServer = server) {
  return fixture.createModel({ baseURL: on.url, apiKey: "sk-suite-key" });
}

async function run<O>(
  agent: Agent<Record<string, unknown>, O>,
  prompt: string,
  stream: boolean,
  options: { sessionId: string; store: SessionStore },
): Promise<void> {
  if (!stream) {
    await agent.run(prompt, options);
    return;
  }
  const events = agent.stream(prompt, options);
  for await (const _ of events);
  await events.result;
}

describe.each(fixtures)("rebuildRequest against the $name wire-format server", (fixture) => {
  const api = apiOf[fixture.name] ?? fixture.name;
  describe.each([false, true])("stream: %s", (stream) => {
    it("tools, reasoning and retries over two runs of a SQLite session: every body, retried attempts included", async () => {
      server.reset();
      waits.length = 0;
      server.enqueue(
        fixture.errorReply(429, { "retry-after-ms": "5" }),
        withId(fixture.reply("tool-call", stream), "req_tool"),
        fixture.errorReply(500),
        withId(fixture.reply("reasoning", stream), "req_reasoning"),
        withId(fixture.reply("text", stream), "req_text"),
      );
      const agent = new Agent({
        model: modelOf(fixture),
        instructions: "You answer about the weather.",
        tools: [getWeather, getTime],
        retry,
        settings: { temperature: 0.2, maxOutputTokens: 700, providerOptions: { unused: { x: 1 } } },
      });
      const sessionId = `tools-${fixture.name}-${stream}`;
      await run(agent, "Weather in Paris?", stream, { sessionId, store: sqlite });
      await run(agent, "And tomorrow?", stream, { sessionId, store: sqlite });
      const log = await sqlite.read(sessionId);

      expect(server.requests).toHaveLength(5);
      expectRebuilt(log, { [api]: server });

      const retries = log.filter((event): event is EventOf<"model_retry"> => event.type === "model_retry");
      expect(retries.map((event) => event.data)).toEqual([
        {
          model: `${fixture.name === "openai-responses" ? "openai" : fixture.name}:${modelOf(fixture).modelId}`,
          attempt: 1,
          error: expect.objectContaining({ code: "provider_rate_limit", name: "RateLimitError", status: 429 }),
          retryAfterMs: expect.any(Number),
          delayMs: waits[0],
        },
        expect.objectContaining({
          attempt: 1,
          error: expect.objectContaining({ name: "ProviderServerError", status: 500 }),
          delayMs: 100,
        }),
      ]);
      expect(retries[0]?.data.retryAfterMs).toBe(retries[0]?.data.delayMs);
      expect(retries[0]?.data.delayMs).toBeGreaterThanOrEqual(5);
      expect(retries[1]?.data.retryAfterMs).toBeUndefined();

      const definitions = log.filter((event) => event.type === "tool_definitions");
      expect(definitions).toHaveLength(1);
      const requests = log.filter((event): event is EventOf<"model_request"> => event.type === "model_request");
      expect(requests).toHaveLength(3);
      for (const request of requests) {
        expect(request.data.toolsHash).toBe((definitions[0]?.data as { hash: string }).hash);
        expect(request.data.stream).toBe(stream);
        expect(request.data.wire?.api).toBe(api);
        expect(request.data.messages).toBeUndefined();
      }
      const responses = log.filter((event): event is EventOf<"model_response"> => event.type === "model_response");
      expect(responses.map((event) => event.data.requestId)).toEqual(["req_tool", "req_reasoning", "req_text"]);
      for (const response of responses) expect(response.data.responseId).toEqual(expect.any(String));
    });

    it.each(["native", "tool"] as const)("structured output in %s mode", async (mode) => {
      server.reset();
      server.enqueue(mode === "native" ? fixture.reply("structured-output", stream) : outputToolReply(fixture, stream));
      const agent = new Agent({
        model: modelOf(fixture),
        instructions: "Answer in JSON.",
        outputType: (mode === "native"
          ? z.object({ answer: z.number(), unit: z.string() })
          : z.object({ city: z.string() })) as z.ZodType<unknown>,
        outputMode: mode,
        retry,
      });
      const sessionId = `output-${mode}-${fixture.name}-${stream}`;
      await run(agent, "Answer.", stream, { sessionId, store: sqlite });
      const log = await sqlite.read(sessionId);
      expect(server.requests).toHaveLength(1);
      expectRebuilt(log, { [api]: server });
      const request = log.find((event): event is EventOf<"model_request"> => event.type === "model_request");
      if (mode === "native") expect(request?.data.output?.type).toBe("json");
      else expect(request?.data.outputToolName).toBe(OUTPUT_TOOL_NAME);
    });
  });
});

describe("rebuildRequest across a fallback chain of two providers", () => {
  it.each([
    false,
    true,
  ])("stream: %s — the fallback model's body is rebuilt at the model_fallback seq", async (stream) => {
    server.reset();
    second.reset();
    server.setFallback(anthropicFixture.errorReply(529));
    second.enqueue(geminiFixture.reply("tool-call", stream), geminiFixture.reply("text", stream));
    const agent = new Agent({
      model: modelOf(anthropicFixture),
      fallback: [modelOf(geminiFixture, second)],
      instructions: "You answer about the weather.",
      tools: [getWeather],
      retry: { ...retry, maxRetries: 1 },
    });
    const sessionId = `fallback-${stream}`;
    await run(agent, "Weather in Paris?", stream, { sessionId, store: sqlite });
    const log = await sqlite.read(sessionId);
    expect(server.requests).toHaveLength(4);
    expect(second.requests).toHaveLength(2);
    expectRebuilt(log, { anthropic: server, gemini: second });
    const fallbacks = log.filter((event): event is EventOf<"model_fallback"> => event.type === "model_fallback");
    expect(fallbacks.map((event) => event.data)).toEqual([
      {
        from: "anthropic:claude-sonnet-4-5",
        to: `gemini:${modelOf(geminiFixture).modelId}`,
        wire: { api: "gemini", modelId: modelOf(geminiFixture).modelId },
        error: expect.objectContaining({ code: "provider_overloaded", name: "OverloadedError", status: 529 }),
      },
      expect.objectContaining({ from: "anthropic:claude-sonnet-4-5" }),
    ]);
    expect(log.filter((event) => event.type === "model_retry")).toHaveLength(2);
    server.setFallback(undefined);
  });
});

describe("rebuildRequest errors", () => {
  it("refuses a request sent to a model without a wire format, and an unknown wire format", async () => {
    const store = new MemoryStore();
    const agent = new Agent({ model: new ScriptedModel([{ text: "hi" }]) });
    await agent.run("hi", { sessionId: "scripted", store });
    const log = await store.read("scripted");
    const request = log.find((event) => event.type === "model_request");
    expect(() => rebuildRequest(log, request?.seq ?? 0)).toThrow(RequestRebuildError);
    const odd = log.map((event) =>
      event.type === "model_request"
        ? { ...event, data: { ...(event.data as object), wire: { api: "smoke-signals", modelId: "m" } } }
        : event,
    );
    try {
      rebuildRequest(odd, request?.seq ?? 0);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RequestRebuildError);
      expect((error as RequestRebuildError).problem).toBe("unknown_api");
      expect((error as RequestRebuildError).code).toBe("request_not_rebuildable");
    }
  });
});
