import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { RateLimitError } from "../../errors/provider-error.js";
import { tool } from "../../tools/tool.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { runProviderSuite } from "./test-support/provider-suite.js";
import { collectStream, suiteHistory, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, type WireDelivery } from "./test-support/wire-fetch.js";

runProviderSuite(openAIChatFixture);

describe("openai-chat dialect details", () => {
  const modelWith = (delivery: WireDelivery) => {
    const wire = createWireFetch(() => delivery);
    return { wire, model: createOpenAIChatModel("gpt-4o", { apiKey: "k", fetch: wire.fetch, env: {} }) };
  };
  const json = (value: unknown): WireDelivery => ({ status: 200, chunks: [Buffer.from(JSON.stringify(value))] });
  const sse = (lines: string[]): WireDelivery => ({
    status: 200,
    headers: { "content-type": "text/event-stream" },
    chunks: [Buffer.from(lines.map((line) => `data: ${line}\n\n`).join(""))],
  });
  const textReply = openAIChatFixture.reply("text", false);

  it("converts a full history: system, image and file parts, assistant tool calls, tool results", async () => {
    const { wire, model } = modelWith({ status: 200, chunks: [Buffer.from(textReply.body)] });
    const messages = [
      ...suiteHistory,
      {
        role: "user" as const,
        content: [{ type: "file" as const, data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" }],
      },
    ];
    await model.doGenerate({
      ...suiteRequest("text"),
      messages,
      toolChoice: { type: "tool", toolName: "get_weather" },
    });
    const body = wire.requests[0]?.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: "system", content: "You are the provider test suite." },
      { role: "system", content: "Extra system note." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture, and the weather?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"temp":21}' },
      { role: "user", content: "Thanks!" },
      {
        role: "user",
        content: [{ type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0=" } }],
      },
    ]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
  });

  it("passes sampling settings and provider options", async () => {
    const { wire, model } = modelWith({ status: 200, chunks: [Buffer.from(textReply.body)] });
    await model.doGenerate({
      ...suiteRequest("text"),
      settings: {
        temperature: 0.2,
        topP: 0.9,
        stopSequences: ["END"],
        seed: 7,
        providerOptions: { "openai-chat": { user: "u1" } },
      },
    });
    expect(wire.requests[0]?.body).toMatchObject({ temperature: 0.2, top_p: 0.9, stop: ["END"], seed: 7, user: "u1" });
  });

  it("reports usage details: cached and reasoning tokens", async () => {
    const { model } = modelWith(
      json({
        model: "gpt-4o",
        choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 20,
          total_tokens: 120,
          prompt_tokens_details: { cached_tokens: 64 },
          completion_tokens_details: { reasoning_tokens: 12 },
        },
      }),
    );
    const response = await model.doGenerate(suiteRequest("text"));
    expect(response.usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      totalTokens: 120,
      cachedInputTokens: 64,
      reasoningTokens: 12,
    });
    expect(response.modelId).toBe("gpt-4o");
  });

  it("an error object inside the stream becomes a typed error", async () => {
    const { model } = modelWith(
      sse([
        JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" } }] }),
        JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }),
      ]),
    );
    const { parts, error } = await collectStream(model.doStream(suiteRequest("text")));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(parts.some((part) => part.type === "finish")).toBe(false);
  });

  it("an error object without a code (some compatible servers) is classified by its type", async () => {
    const { model } = modelWith(
      sse([JSON.stringify({ error: { message: "Server overloaded", type: "server_error" } })]),
    );
    const { error } = await collectStream(model.doStream(suiteRequest("text")));
    expect((error as { code?: string }).code).not.toBe("provider_malformed_response");
    expect((error as { message?: string }).message).toContain("Server overloaded");
  });

  it("a streamed agent run with a signal leaves no listener on it (each model stream is closed after finish)", async () => {
    let turn = 0;
    const wire = createWireFetch(() =>
      turn++ < 3
        ? sse([
            JSON.stringify({
              choices: [
                {
                  index: 0,
                  delta: {
                    tool_calls: [
                      { index: 0, id: `c${turn}`, type: "function", function: { name: "ping", arguments: "{}" } },
                    ],
                  },
                },
              ],
            }),
            JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
            "[DONE]",
          ])
        : sse([
            JSON.stringify({ choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }] }),
            "[DONE]",
          ]),
    );
    const model = createOpenAIChatModel("gpt-4o", { apiKey: "k", fetch: wire.fetch, env: {} });
    const ping = tool({
      name: "ping",
      description: "ping",
      input: { type: "object", properties: {} },
      execute: () => "pong",
    });
    const controller = new AbortController();
    const stream = new Agent({ model, tools: [ping] }).stream("go", { signal: controller.signal });
    for await (const _event of stream);
    const output = (await stream.result).output;
    await new Promise((resolve) => setImmediate(resolve));
    expect(output).toBe("done");
    expect(turn).toBe(4);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("finish_reason without [DONE] is still a truncated stream", async () => {
    const { model } = modelWith(
      sse([JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] })]),
    );
    const { error } = await collectStream(model.doStream(suiteRequest("text")));
    expect((error as { code?: string }).code).toBe("provider_stream_truncated");
  });

  it("tool calls without index (some compatible servers) are told apart by id", async () => {
    const call = (id: string, name: string, args: string) => ({
      id,
      type: "function",
      function: { name, arguments: args },
    });
    const { model } = modelWith(
      sse([
        JSON.stringify({
          choices: [{ index: 0, delta: { tool_calls: [call("a", "get_weather", '{"city":"Paris"}')] } }],
        }),
        JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [call("b", "get_time", '{"zone":"UTC"}')] } }] }),
        JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        "[DONE]",
      ]),
    );
    const { parts } = await collectStream(model.doStream(suiteRequest("tool-call")));
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.response.finishReason).toBe("tool-calls");
    expect(finish?.type === "finish" && finish.response.content).toEqual([
      { type: "tool-call", toolCallId: "a", toolName: "get_weather", argsText: '{"city":"Paris"}' },
      { type: "tool-call", toolCallId: "b", toolName: "get_time", argsText: '{"zone":"UTC"}' },
    ]);
  });
});
