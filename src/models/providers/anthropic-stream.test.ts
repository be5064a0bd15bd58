import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  MalformedResponseError,
  OverloadedError,
  RateLimitError,
  StreamTruncatedError,
} from "../../errors/provider-error.js";
import type { ModelRequest, ModelStreamPart } from "../model.js";
import { createAnthropicModel } from "./anthropic.js";
import { parseAnthropicResponse } from "./anthropic-response.js";
import { anthropicSse } from "./test-support/anthropic.fixture.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

const request: ModelRequest = { messages: [{ role: "user", content: "Go" }], tools: [], settings: {} };

function modelAnswering(delivery: () => WireDelivery, settings = {}) {
  const wire = createWireFetch(delivery);
  const model = createAnthropicModel("claude-sonnet-4-5", {
    apiKey: "k",
    baseURL: "http://wire.invalid",
    fetch: wire.fetch,
    ...settings,
  });
  return { model, wire };
}

async function collect(stream: AsyncIterable<ModelStreamPart>) {
  const parts: ModelStreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

const start = (usage = { input_tokens: 10, output_tokens: 1 }) =>
  [
    "message_start",
    { type: "message_start", message: { id: "msg_1", model: "claude-sonnet-4-5", content: [], usage } },
  ] as const;
const delta = (index: number, value: Record<string, unknown>) =>
  ["content_block_delta", { type: "content_block_delta", index, delta: value }] as const;
const json = (index: number, partial_json: string) => delta(index, { type: "input_json_delta", partial_json });
const blockStart = (index: number, content_block: Record<string, unknown>) =>
  ["content_block_start", { type: "content_block_start", index, content_block }] as const;
const blockStop = (index: number) => ["content_block_stop", { type: "content_block_stop", index }] as const;
const messageDelta = (stop_reason: string, usage: Record<string, number>) =>
  ["message_delta", { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage }] as const;
const stop = ["message_stop", { type: "message_stop" }] as const;

/** Text, two tool calls whose input_json_delta fragments interleave and split mid-token and mid-character. */
const interleaved = anthropicSse([
  start({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 } as never),
  blockStart(0, { type: "text", text: "" }),
  ["ping", { type: "ping" }],
  delta(0, { type: "text_delta", text: "Checking " }),
  blockStart(1, { type: "tool_use", id: "toolu_a", name: "get_weather", input: {} }),
  blockStart(2, { type: "tool_use", id: "toolu_b", name: "get_time", input: {} }),
  json(1, '{"ci'),
  json(2, '{"zo'),
  delta(0, { type: "text_delta", text: "both…" }),
  json(1, 'ty": "Zür'),
  json(2, 'ne": "Asia/Tō'),
  json(1, 'ich"}'),
  ["future_event", { type: "future_event", anything: true }],
  json(2, 'kyō"}'),
  blockStop(0),
  blockStop(2),
  blockStop(1),
  messageDelta("tool_use", { output_tokens: 42 }),
  stop,
]);

describe("Anthropic stream assembly", () => {
  it("assembles interleaved blocks and split input_json_delta fragments, in index order", async () => {
    const { model } = modelAnswering(() => deliver({ status: 200, body: interleaved }));
    const { parts, error } = await collect(model.doStream(request));
    expect(error).toBeUndefined();
    const finish = parts.at(-1);
    expect(finish?.type).toBe("finish");
    if (finish?.type !== "finish") return;
    expect(finish.response).toEqual({
      content: [
        { type: "text", text: "Checking both…" },
        { type: "tool-call", toolCallId: "toolu_a", toolName: "get_weather", argsText: '{"city": "Zürich"}' },
        { type: "tool-call", toolCallId: "toolu_b", toolName: "get_time", argsText: '{"zone": "Asia/Tōkyō"}' },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 115, outputTokens: 42, totalTokens: 157, cachedInputTokens: 100, cacheWriteTokens: 5 },
      modelId: "claude-sonnet-4-5",
      providerMetadata: { anthropic: { messageId: "msg_1" } },
      responseId: "msg_1",
    });
    const deltasOf = (id: string) =>
      parts.flatMap((part) => (part.type === "tool-call-delta" && part.toolCallId === id ? [part.argsTextDelta] : []));
    expect(deltasOf("toolu_b")).toEqual(['{"zo', 'ne": "Asia/Tō', 'kyō"}']);
    expect(parts.filter((part) => part.type === "tool-call-end").map((part) => part)).toEqual([
      { type: "tool-call-end", toolCallId: "toolu_b" },
      { type: "tool-call-end", toolCallId: "toolu_a" },
    ]);
  });

  it("truncated at every byte offset: StreamTruncatedError, never a finish or a tool call in one", async () => {
    const bytes = Buffer.from(interleaved, "utf8");
    const problems: string[] = [];
    let offset = 0;
    const { model } = modelAnswering(() => ({ status: 200, chunks: [bytes.subarray(0, offset)] }));
    for (; offset < bytes.length; offset++) {
      const { parts, error } = await collect(model.doStream(request));
      if (!(error instanceof StreamTruncatedError)) problems.push(`${offset}: ${String(error)}`);
      if (parts.some((part) => part.type === "finish")) problems.push(`${offset}: finished`);
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it("keeps the thinking signature from signature_delta and redacted thinking data", async () => {
    const body = anthropicSse([
      start(),
      blockStart(0, { type: "thinking", thinking: "" }),
      delta(0, { type: "thinking_delta", thinking: "Hmm." }),
      delta(0, { type: "signature_delta", signature: "EqQBCgIYAhIM" }),
      blockStop(0),
      blockStart(1, { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" }),
      blockStop(1),
      blockStart(2, { type: "text", text: "" }),
      delta(2, { type: "text_delta", text: "Yes." }),
      blockStop(2),
      messageDelta("end_turn", { output_tokens: 9 }),
      stop,
    ]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { parts } = await collect(model.doStream(request));
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response.content).toEqual([
      { type: "reasoning", text: "Hmm.", providerMetadata: { anthropic: { signature: "EqQBCgIYAhIM" } } },
      { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "EmwKAhgBEgy3va3pzix" } } },
      { type: "text", text: "Yes." },
    ]);
  });

  it("a tool call cut off by max_tokens is left out of the finish; a cut-off one under tool_use is malformed", async () => {
    const events = (reason: string) =>
      anthropicSse([
        start(),
        blockStart(0, { type: "tool_use", id: "toolu_x", name: "get_weather", input: {} }),
        json(0, '{"city": "Par'),
        blockStop(0),
        messageDelta(reason, { output_tokens: 1024 }),
        stop,
      ]);
    let reason = "max_tokens";
    const { model } = modelAnswering(() => deliver({ status: 200, body: events(reason) }));
    const cut = await collect(model.doStream(request));
    const finish = cut.parts.at(-1);
    expect(finish?.type === "finish" && finish.response).toMatchObject({ content: [], finishReason: "length" });
    reason = "tool_use";
    const broken = await collect(model.doStream(request));
    expect(broken.error).toBeInstanceOf(MalformedResponseError);
    expect(broken.parts.some((part) => part.type === "finish")).toBe(false);
  });

  it("an error event mid-stream becomes its typed error, with no finish", async () => {
    const body = anthropicSse([
      start(),
      blockStart(0, { type: "text", text: "" }),
      delta(0, { type: "text_delta", text: "Hel" }),
      ["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
    ]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { parts, error } = await collect(model.doStream(request));
    expect(error).toBeInstanceOf(OverloadedError);
    expect(parts).toEqual([{ type: "text-delta", text: "Hel" }]);
  });

  it("structured output in tool mode streams the forced tool's input as text and finishes with stop", async () => {
    const body = anthropicSse([
      start(),
      blockStart(0, { type: "tool_use", id: "toolu_o", name: "nous_structured_output", input: {} }),
      json(0, '{"answer":'),
      json(0, "42}"),
      blockStop(0),
      messageDelta("tool_use", { output_tokens: 8 }),
      stop,
    ]);
    const { model, wire } = modelAnswering(() => deliver({ status: 200, body }), { structuredOutput: "tool" });
    expect(model.capabilities?.nativeOutput).toBe(false);
    const output = { type: "json" as const, name: "answer", schema: { type: "object" } };
    const { parts } = await collect(model.doStream({ ...request, output }));
    expect(parts.map((part) => part.type)).toEqual(["text-delta", "text-delta", "finish"]);
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response).toMatchObject({
      content: [{ type: "text", text: '{"answer":42}' }],
      finishReason: "stop",
    });
    expect(wire.requests[0]?.body).toMatchObject({ tool_choice: { type: "tool", name: "nous_structured_output" } });
  });
});

describe("Anthropic responses and errors", () => {
  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["tool_use", "tool-calls"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "content-filter"],
    ["pause_turn", "other"],
  ])("stop_reason %s → %s", (stopReason, finishReason) => {
    const response = parseAnthropicResponse({ content: [], stop_reason: stopReason, usage: {} }, undefined);
    expect(response.finishReason).toBe(finishReason);
  });

  it("maps error bodies by error.type as well as status", async () => {
    const cases: [number, string, unknown][] = [
      [400, "authentication_error", AuthenticationError],
      [500, "overloaded_error", OverloadedError],
      [400, "rate_limit_error", RateLimitError],
      [413, "request_too_large", BadRequestError],
    ];
    for (const [status, type, errorClass] of cases) {
      const body = JSON.stringify({ type: "error", error: { type, message: "Request exceeds the maximum size" } });
      const { model } = modelAnswering(() => deliver({ status, body }));
      const error = await model.doGenerate(request).catch((caught: unknown) => caught);
      expect(error, `${status} ${type}`).toBeInstanceOf(errorClass as never);
      expect(error).toMatchObject({ status, provider: "anthropic" });
    }
  });

  it("reads the key and base URL from settings.env at request time; a missing key is an AuthenticationError", async () => {
    const wire = createWireFetch(() => deliver({ status: 200, body: JSON.stringify({ content: [], usage: {} }) }));
    const env: Record<string, string | undefined> = {};
    const model = createAnthropicModel("claude-sonnet-4-5", { env, fetch: wire.fetch });
    await expect(model.doGenerate(request)).rejects.toBeInstanceOf(AuthenticationError);
    env.ANTHROPIC_API_KEY = "sk-env";
    env.ANTHROPIC_BASE_URL = "http://proxy.invalid/anthropic/";
    await model.doGenerate(request);
    expect(wire.requests[0]?.path).toBe("/anthropic/v1/messages");
    expect(wire.requests[0]?.headers["x-api-key"]).toBe("sk-env");
  });
});
