import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ProviderServerError, RateLimitError } from "../errors/provider-error.js";
import type { Model, ModelRequest } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { EventOf, SessionEvent } from "../session/events.js";
import { recordedRequest } from "../session/recorded-request.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { toolDefinitionsHash } from "./request-record.js";

const add = tool({
  name: "add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

const requestsOf = (log: readonly SessionEvent[]) =>
  log.filter((event): event is EventOf<"model_request"> => event.type === "model_request");

/** Comparable: what a model received, without the run's signal and notice callback. */
const plain = (request: ModelRequest) => {
  const { signal: _signal, onNotice: _onNotice, ...rest } = request;
  return JSON.parse(JSON.stringify(rest)) as unknown;
};

describe("model_request records the request as sent", () => {
  it("resolves from the log to exactly what the model received: window by reference, tools by hash, settings", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "3" }]);
    const agent = new Agent({
      model,
      instructions: "You add.",
      tools: [add],
      settings: { temperature: 0, providerOptions: { scripted: { flag: true, skip: undefined } } },
    });
    const result = await agent.run("1+2?");
    const requests = requestsOf(result.log);
    expect(requests).toHaveLength(2);
    requests.forEach((event, index) => {
      expect(event.data.messages).toBeUndefined();
      // One range, from the session's first event to the last one before the request (O(1) in size).
      expect(event.data.window).toEqual([[1, index === 0 ? event.seq - 2 : event.seq - 1]]);
      expect(event.data.stream).toBe(false);
      expect(event.data.settings).toEqual({ temperature: 0, providerOptions: { scripted: { flag: true } } });
      const rebuilt = recordedRequest(result.log, event.seq).request;
      expect(plain(rebuilt)).toEqual(plain(model.requests[index] as ModelRequest));
    });
    const definitions = result.log.filter((event) => event.type === "tool_definitions");
    expect(definitions).toHaveLength(1);
    expect(requests[0]?.data.toolsHash).toBe(toolDefinitionsHash((model.requests[0] as ModelRequest).tools));
  });

  it("inlines the messages when a preRequest hook sent others, and marks streamed requests", async () => {
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = new Agent({
      model,
      hooks: {
        preRequest: (request) => ({ ...request, messages: [{ role: "user", content: "rewritten" }] }),
      },
    });
    const stream = agent.stream("original");
    for await (const _ of stream);
    const log: readonly SessionEvent[] = (await stream.result).log;
    const event = requestsOf(log)[0];
    expect(event?.data.window).toBeUndefined();
    expect(event?.data.messages).toEqual([{ role: "user", content: "rewritten" }]);
    expect(event?.data.stream).toBe(true);
    expect(event?.data.toolsHash).toBeUndefined();
  });

  it("records one tool_definitions per distinct set in a session, across runs", async () => {
    const store = new MemoryStore();
    const script = [{ text: "a" }, { text: "b" }, { text: "c" }];
    const model = new ScriptedModel(script);
    const first = new Agent({ model, tools: [add] });
    await first.run("one", { sessionId: "s", store });
    await first.run("two", { sessionId: "s", store });
    const other = tool({ name: "sub", description: "Subtracts", input: z.object({ a: z.number() }), execute: () => 0 });
    const second = new Agent({ model, tools: [add, other] });
    await second.run("three", { sessionId: "s", store, allowAgentChange: true });
    const log = await store.read("s");
    const definitions = log.filter((event): event is EventOf<"tool_definitions"> => event.type === "tool_definitions");
    expect(definitions.map((event) => event.data.tools.map((definition) => definition.name))).toEqual([
      ["add"],
      ["add", "sub"],
    ]);
    const hashes = requestsOf(log).map((event) => event.data.toolsHash);
    expect(hashes).toEqual([definitions[0]?.data.hash, definitions[0]?.data.hash, definitions[1]?.data.hash]);
  });

  it("keeps the log O(n) in messages: request events do not copy the history", async () => {
    const sizes: number[] = [];
    for (const steps of [50, 200]) {
      const script = Array.from({ length: steps }, (_, index) =>
        index < steps - 1 ? { toolCalls: [{ name: "add", args: { a: index, b: 1 } }] } : { text: "done" },
      );
      const agent = new Agent({ model: new ScriptedModel(script), tools: [add], maxIterations: steps + 1 });
      const result = await agent.run("count");
      const bytes = requestsOf(result.log).reduce((sum, event) => sum + JSON.stringify(event.data).length, 0);
      sizes.push(bytes / steps);
    }
    // Bytes per request stay flat as the history grows (a copied history would grow 4x from 50 to 200 steps).
    expect(sizes[1]).toBeLessThan((sizes[0] as number) * 1.5);
  });
});

describe("retries and fallbacks are recorded", () => {
  const failing = (errors: Error[], answer: string): Model => {
    let calls = 0;
    const scripted = new ScriptedModel([{ text: answer }], { modelId: answer });
    return {
      ...scripted,
      specificationVersion: scripted.specificationVersion,
      provider: "flaky",
      modelId: answer,
      wire: { api: "openai-chat", modelId: answer },
      doGenerate: (request) => {
        const error = errors[calls++];
        return error ? Promise.reject(error) : scripted.doGenerate(request);
      },
      doStream: (request) => scripted.doStream(request),
    };
  };

  it("model_retry carries attempt, error class and status, the retry-after used and the wait; model_fallback the move", async () => {
    const waits: number[] = [];
    const agent = new Agent({
      model: failing(
        [
          new RateLimitError({ provider: "flaky", message: "slow down", status: 429, retryAfterMs: 250 }),
          new ProviderServerError({ provider: "flaky", message: "boom", status: 502 }),
          new ProviderServerError({ provider: "flaky", message: "boom again", status: 503 }),
        ],
        "first",
      ),
      fallback: [failing([], "second")],
      retry: { maxRetries: 2, initialDelayMs: 40, jitter: 0, sleep: async (ms) => void waits.push(ms) },
    });
    const result = await agent.run("hi");
    expect(result.output).toBe("second");
    const retries = result.log.filter((event) => event.type === "model_retry").map((event) => event.data);
    expect(retries).toEqual([
      {
        model: "flaky:first",
        attempt: 1,
        error: { code: "provider_rate_limit", name: "RateLimitError", message: "flaky: slow down", status: 429 },
        retryAfterMs: 250,
        delayMs: 250,
      },
      {
        model: "flaky:first",
        attempt: 2,
        error: { code: "provider_server_error", name: "ProviderServerError", message: "flaky: boom", status: 502 },
        delayMs: 80,
      },
    ]);
    expect(waits).toEqual([250, 80]);
    const fallbacks = result.log.filter((event) => event.type === "model_fallback").map((event) => event.data);
    expect(fallbacks).toEqual([
      {
        from: "flaky:first",
        to: "flaky:second",
        wire: { api: "openai-chat", modelId: "second" },
        error: expect.objectContaining({ name: "ProviderServerError", status: 503 }),
      },
    ]);
    const types = result.log.map((event) => event.type);
    expect(types.indexOf("model_request")).toBeLessThan(types.indexOf("model_retry"));
    expect(types.lastIndexOf("model_retry")).toBeLessThan(types.indexOf("model_fallback"));
    expect(types.indexOf("model_fallback")).toBeLessThan(types.indexOf("model_response"));
    const request = requestsOf(result.log)[0];
    expect(request?.data.wire).toEqual({ api: "openai-chat", modelId: "first" });
    expect(recordedRequest(result.log, types.indexOf("model_fallback") + 1).wire).toEqual({
      api: "openai-chat",
      modelId: "second",
    });
  });
});
