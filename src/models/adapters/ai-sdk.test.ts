import { describe, expect, it } from "vitest";
import { RateLimitError, StreamTruncatedError } from "../../errors/provider-error.js";
import type { ModelRequest, ModelStreamPart } from "../model.js";
import { fromAiSdk } from "./ai-sdk.js";
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkStreamPart } from "./ai-sdk-types.js";

const request: ModelRequest = {
  instructions: "Be brief.",
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "Weather?" },
        { type: "image", data: "AAAA", mediaType: "image/png" },
      ],
    },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", args: { city: "Paris" } }],
    },
    { role: "tool", toolCallId: "c1", toolName: "get_weather", result: { temp: 21 }, isError: false },
  ],
  tools: [{ name: "get_weather", description: "Weather", inputSchema: { type: "object" } }],
  toolChoice: { type: "tool", toolName: "get_weather" },
  settings: { maxOutputTokens: 100, temperature: 0 },
};

function streamOf(parts: AiSdkStreamPart[], error?: unknown): ReadableStream<AiSdkStreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (error === undefined) controller.close();
      else controller.error(error);
    },
  });
}

/** A hand-written object of the AI SDK LanguageModel shape, recording its calls. */
function fakeLanguageModel(version: "v2" | "v3", streamParts: AiSdkStreamPart[], generateError?: unknown) {
  const calls: AiSdkCallOptions[] = [];
  const v3 = version === "v3";
  const model: AiSdkLanguageModel & { calls: AiSdkCallOptions[] } = {
    specificationVersion: version,
    provider: "fake.chat",
    modelId: "fake-1",
    calls,
    async doGenerate(options) {
      calls.push(options);
      if (generateError !== undefined) throw generateError;
      return {
        content: [
          { type: "reasoning", text: "thinking" },
          { type: "text", text: "Sunny" },
          { type: "tool-call", toolCallId: "t1", toolName: "get_weather", input: '{"city":"Oslo"}' },
        ],
        finishReason: v3 ? { unified: "tool-calls", raw: "tool_use" } : "tool-calls",
        usage: v3
          ? { inputTokens: { total: 10, cacheRead: 4 }, outputTokens: { total: 5, reasoning: 2 } }
          : { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4, reasoningTokens: 2 },
        response: { modelId: "fake-1-2025" },
      };
    },
    async doStream(options) {
      calls.push(options);
      return { stream: streamOf(streamParts) };
    },
  };
  return model;
}

const fullStream: AiSdkStreamPart[] = [
  { type: "stream-start" },
  { type: "reasoning-start", id: "r" },
  { type: "reasoning-delta", id: "r", delta: "think" },
  { type: "reasoning-end", id: "r" },
  { type: "text-start", id: "x" },
  { type: "text-delta", id: "x", delta: "Hel" },
  { type: "text-delta", id: "x", delta: "lo" },
  { type: "text-end", id: "x" },
  { type: "tool-input-start", id: "t1", toolName: "get_weather" },
  { type: "tool-input-delta", id: "t1", delta: '{"city":' },
  { type: "tool-input-delta", id: "t1", delta: '"Oslo"}' },
  { type: "tool-input-end", id: "t1" },
  { type: "tool-call", toolCallId: "t1", toolName: "get_weather", input: '{"city":"Oslo"}' },
  { type: "tool-call", toolCallId: "t2", toolName: "get_time", input: '{"zone":"UTC"}' },
  { type: "finish", usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, finishReason: "tool-calls" },
];

async function collect(stream: AsyncIterable<ModelStreamPart>) {
  const parts: ModelStreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

describe("fromAiSdk", () => {
  for (const version of ["v2", "v3"] as const) {
    it(`${version}: doGenerate maps the prompt in and content, usage and finish reason out`, async () => {
      const fake = fakeLanguageModel(version, []);
      const model = fromAiSdk(fake);
      expect(model).toMatchObject({ provider: "fake.chat", modelId: "fake-1", specificationVersion: "nous-model-v1" });
      const response = await model.doGenerate(request);
      expect(response).toEqual({
        content: [
          { type: "reasoning", text: "thinking" },
          { type: "text", text: "Sunny" },
          { type: "tool-call", toolCallId: "t1", toolName: "get_weather", argsText: '{"city":"Oslo"}' },
        ],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4, reasoningTokens: 2 },
        finishReason: "tool-calls",
        modelId: "fake-1-2025",
      });
      expect(fake.calls[0]).toMatchObject({
        prompt: [
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [
              { type: "text", text: "Weather?" },
              { type: "file", data: "AAAA", mediaType: "image/png" },
            ],
          },
          {
            role: "assistant",
            content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Paris" } }],
          },
          {
            role: "tool",
            content: [
              {
                type: "tool-result",
                toolCallId: "c1",
                toolName: "get_weather",
                output: { type: "json", value: { temp: 21 } },
              },
            ],
          },
        ],
        tools: [{ type: "function", name: "get_weather", inputSchema: { type: "object" } }],
        toolChoice: { type: "tool", toolName: "get_weather" },
        maxOutputTokens: 100,
        temperature: 0,
      });
    });
  }

  it("a tool result with content parts becomes `content` output: v3 image-data/file-data, v2 media", async () => {
    const withContent: ModelRequest = {
      ...request,
      messages: [
        ...request.messages.slice(0, 2),
        {
          role: "tool",
          toolCallId: "c1",
          toolName: "get_weather",
          result: "Radar",
          isError: false,
          content: [
            { type: "image", data: "AAAA", mediaType: "image/png" },
            { type: "file", data: "JVBE", mediaType: "application/pdf", filename: "f.pdf" },
          ],
        },
      ],
    };
    const outputs: Record<string, unknown> = {};
    for (const version of ["v2", "v3"] as const) {
      const fake = fakeLanguageModel(version, []);
      await fromAiSdk(fake).doGenerate(withContent);
      const tool = fake.calls[0]?.prompt.at(-1) as { content: { output: unknown }[] };
      outputs[version] = tool.content[0]?.output;
    }
    expect(outputs).toEqual({
      v2: {
        type: "content",
        value: [
          { type: "text", text: "Radar" },
          { type: "media", data: "AAAA", mediaType: "image/png" },
          { type: "media", data: "JVBE", mediaType: "application/pdf" },
        ],
      },
      v3: {
        type: "content",
        value: [
          { type: "text", text: "Radar" },
          { type: "image-data", data: "AAAA", mediaType: "image/png" },
          { type: "file-data", data: "JVBE", mediaType: "application/pdf", filename: "f.pdf" },
        ],
      },
    });
  });

  it("doStream maps deltas and tool input parts; a tool-call without input parts is started and ended too", async () => {
    const { parts, error } = await collect(fromAiSdk(fakeLanguageModel("v2", fullStream)).doStream(request));
    expect(error).toBeUndefined();
    expect(parts).toEqual([
      { type: "reasoning-delta", text: "think" },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "tool-call-start", toolCallId: "t1", toolName: "get_weather" },
      { type: "tool-call-delta", toolCallId: "t1", argsTextDelta: '{"city":' },
      { type: "tool-call-delta", toolCallId: "t1", argsTextDelta: '"Oslo"}' },
      { type: "tool-call-end", toolCallId: "t1" },
      { type: "tool-call-start", toolCallId: "t2", toolName: "get_time" },
      { type: "tool-call-delta", toolCallId: "t2", argsTextDelta: '{"zone":"UTC"}' },
      { type: "tool-call-end", toolCallId: "t2" },
      {
        type: "finish",
        response: {
          content: [
            { type: "reasoning", text: "think" },
            { type: "text", text: "Hello" },
            { type: "tool-call", toolCallId: "t1", toolName: "get_weather", argsText: '{"city":"Oslo"}' },
            { type: "tool-call", toolCallId: "t2", toolName: "get_time", argsText: '{"zone":"UTC"}' },
          ],
          usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
          finishReason: "tool-calls",
        },
      },
    ]);
  });

  it("a stream without its finish part is StreamTruncatedError and yields no finish", async () => {
    const { parts, error } = await collect(
      fromAiSdk(fakeLanguageModel("v2", fullStream.slice(0, 12))).doStream(request),
    );
    expect(error).toBeInstanceOf(StreamTruncatedError);
    expect(parts.some((part) => part.type === "finish")).toBe(false);
  });

  it("SDK errors with a status become typed provider errors, with retry-after", async () => {
    const apiCallError = Object.assign(new Error("Too many requests"), {
      name: "AI_APICallError",
      statusCode: 429,
      responseHeaders: { "retry-after": "2" },
      responseBody: '{"error":{"message":"slow down"}}',
    });
    const error = await fromAiSdk(fakeLanguageModel("v2", [], apiCallError))
      .doGenerate(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ provider: "fake.chat", status: 429, retryAfterMs: 2000 });

    const streamError = { type: "error", error: apiCallError } as const;
    const streamed = await collect(fromAiSdk(fakeLanguageModel("v2", [streamError])).doStream(request));
    expect(streamed.error).toBeInstanceOf(RateLimitError);
  });

  it("an abort rejects with the signal's reason, and the signal is passed to the SDK", async () => {
    const reason = new Error("stop");
    const signal = AbortSignal.abort(reason);
    const fake = fakeLanguageModel("v3", [], new DOMException("aborted", "AbortError"));
    await expect(fromAiSdk(fake).doGenerate({ ...request, signal })).rejects.toBe(reason);
    expect(fake.calls[0]?.abortSignal).toBe(signal);
  });
});
