import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ContextTooLongError,
  RateLimitError,
  StreamTruncatedError,
} from "../../errors/provider-error.js";
import type { ModelRequest, ModelStreamPart } from "../model.js";
import { createGeminiModel, type GeminiSettings } from "./gemini.js";
import { convertUsage, mapFinishReason, parseGeminiResponse } from "./gemini-response.js";
import { geminiSse } from "./test-support/gemini.fixture.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

const request: ModelRequest = { messages: [{ role: "user", content: "Go" }], tools: [], settings: {} };

function modelAnswering(delivery: () => WireDelivery, settings: GeminiSettings = {}) {
  const wire = createWireFetch(delivery);
  let counter = 0;
  const model = createGeminiModel("gemini-2.5-flash", {
    apiKey: "k",
    baseURL: "http://wire.invalid",
    fetch: wire.fetch,
    generateId: () => `id-${++counter}`,
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

const chunk = (parts: unknown[], finishReason?: string, usageMetadata?: unknown) => ({
  candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}) }],
  ...(usageMetadata ? { usageMetadata } : {}),
});

const toolStream = geminiSse([
  chunk([{ text: "Let me see…", thought: true }]),
  chunk([{ text: "Checking " }]),
  chunk([{ functionCall: { name: "get_weather", args: { city: "Zürich" } }, thoughtSignature: "sig-1" }]),
  chunk([{ functionCall: { name: "get_time", args: { zone: "Asia/Tōkyō" } } }], "STOP", {
    promptTokenCount: 30,
    candidatesTokenCount: 18,
    thoughtsTokenCount: 12,
    cachedContentTokenCount: 20,
    totalTokenCount: 60,
  }),
]);

describe("Gemini stream assembly", () => {
  it("assembles thoughts, text and id-less function calls with generated unique ids", async () => {
    const { model } = modelAnswering(() => deliver({ status: 200, body: toolStream }));
    const { parts, error } = await collect(model.doStream(request));
    expect(error).toBeUndefined();
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response).toEqual({
      content: [
        { type: "reasoning", text: "Let me see…" },
        { type: "text", text: "Checking " },
        {
          type: "tool-call",
          toolCallId: "id-1",
          toolName: "get_weather",
          argsText: '{"city":"Zürich"}',
          providerMetadata: { gemini: { thoughtSignature: "sig-1" } },
        },
        { type: "tool-call", toolCallId: "id-2", toolName: "get_time", argsText: '{"zone":"Asia/Tōkyō"}' },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 30, outputTokens: 30, totalTokens: 60, cachedInputTokens: 20, reasoningTokens: 12 },
    });
  });

  it("truncated at every byte offset: StreamTruncatedError, never a finish or a tool call in one", async () => {
    const bytes = Buffer.from(toolStream, "utf8");
    const problems: string[] = [];
    let offset = 0;
    const { model } = modelAnswering(() => ({ status: 200, chunks: [bytes.subarray(0, offset)] }));
    // Up to the end of the last chunk's JSON; after it only the closing CRLFs remain, and a lone CR may end the event.
    for (; offset <= bytes.length - 4; offset++) {
      const { parts, error } = await collect(model.doStream(request));
      if (!(error instanceof StreamTruncatedError)) problems.push(`${offset}: ${String(error)}`);
      if (parts.some((part) => part.type === "finish")) problems.push(`${offset}: finished`);
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it("a stream whose last chunk has no finishReason is truncated, even after an earlier one had it", async () => {
    const body = geminiSse([chunk([{ text: "a" }], "STOP"), chunk([{ text: "b" }])]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { error } = await collect(model.doStream(request));
    expect(error).toBeInstanceOf(StreamTruncatedError);
  });

  it("a signature on a final empty text part is kept on the text it ends", async () => {
    const body = geminiSse([
      chunk([{ text: "Hel" }]),
      chunk([{ text: "lo" }]),
      chunk([{ text: "", thoughtSignature: "s" }], "STOP"),
    ]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { parts } = await collect(model.doStream(request));
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response.content).toEqual([
      { type: "text", text: "Hello", providerMetadata: { gemini: { thoughtSignature: "s" } } },
    ]);
  });

  it("an error chunk becomes its typed error", async () => {
    const body = geminiSse([
      chunk([{ text: "a" }]),
      { error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } },
    ]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { parts, error } = await collect(model.doStream(request));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(parts.some((part) => part.type === "finish")).toBe(false);
  });

  it("a blocked prompt completes with content-filter", async () => {
    const body = geminiSse([{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 4 } }]);
    const { model } = modelAnswering(() => deliver({ status: 200, body }));
    const { parts } = await collect(model.doStream(request));
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response).toEqual({
      content: [],
      finishReason: "content-filter",
      usage: { inputTokens: 4 },
    });
  });
});

describe("Gemini responses and errors", () => {
  it.each([
    ["STOP", false, "stop"],
    ["STOP", true, "tool-calls"],
    ["MAX_TOKENS", false, "length"],
    ["SAFETY", false, "content-filter"],
    ["RECITATION", false, "content-filter"],
    ["PROHIBITED_CONTENT", false, "content-filter"],
    ["MALFORMED_FUNCTION_CALL", false, "error"],
    ["OTHER", false, "other"],
  ] as const)("finishReason %s (tool calls: %s) → %s", (reason, toolCalls, expected) => {
    expect(mapFinishReason(reason, toolCalls)).toBe(expected);
  });

  it("usage: output adds thoughts to candidates; cached tokens are reported", () => {
    expect(convertUsage({ promptTokenCount: 10, candidatesTokenCount: 5, cachedContentTokenCount: 3 })).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cachedInputTokens: 3,
    });
  });

  it("keeps Gemini's own function call id, and generates distinct ids otherwise", () => {
    let counter = 0;
    const response = parseGeminiResponse(
      chunk(
        [
          { functionCall: { id: "abc", name: "f", args: {} } },
          { functionCall: { name: "f" } },
          { functionCall: { name: "f", args: { x: 1 } } },
        ],
        "STOP",
      ),
      () => `g${++counter}`,
    );
    expect(response.content.map((part) => (part.type === "tool-call" ? [part.toolCallId, part.argsText] : []))).toEqual(
      [
        ["abc", "{}"],
        ["g1", "{}"],
        ["g2", '{"x":1}'],
      ],
    );
  });

  it("maps an invalid API key (400 INVALID_ARGUMENT, reason API_KEY_INVALID) to AuthenticationError", async () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
      },
    });
    const { model } = modelAnswering(() => deliver({ status: 400, body }));
    await expect(model.doGenerate(request)).rejects.toBeInstanceOf(AuthenticationError);
    const long = JSON.stringify({
      error: {
        code: 400,
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    });
    const tooLong = modelAnswering(() => deliver({ status: 400, body: long }));
    await expect(tooLong.model.doGenerate(request)).rejects.toBeInstanceOf(ContextTooLongError);
  });

  it("reads GEMINI_API_KEY, then GOOGLE_API_KEY, and GEMINI_BASE_URL at request time", async () => {
    const wire = createWireFetch(() => deliver({ status: 200, body: JSON.stringify(chunk([{ text: "ok" }], "STOP")) }));
    const env: Record<string, string | undefined> = {};
    const model = createGeminiModel("models/gemini-2.5-pro", { env, fetch: wire.fetch });
    await expect(model.doGenerate(request)).rejects.toBeInstanceOf(AuthenticationError);
    env.GOOGLE_API_KEY = "google-key";
    env.GEMINI_BASE_URL = "http://proxy.invalid/g/";
    await model.doGenerate(request);
    expect(wire.requests[0]?.path).toBe("/g/v1beta/models/gemini-2.5-pro:generateContent");
    expect(wire.requests[0]?.headers["x-goog-api-key"]).toBe("google-key");
    env.GEMINI_API_KEY = "gemini-key";
    await collect(model.doStream(request));
    expect(wire.requests[1]?.path).toBe("/g/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(wire.requests[1]?.headers["x-goog-api-key"]).toBe("gemini-key");
  });
});
