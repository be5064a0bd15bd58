import { describe, expect, it } from "vitest";
import { ContextTooLongError, RateLimitError, StreamTruncatedError } from "../../errors/provider-error.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";
import { runProviderSuite } from "./test-support/provider-suite.js";
import { collectStream, suiteHistory, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, type WireDelivery } from "./test-support/wire-fetch.js";

runProviderSuite(openAIResponsesFixture);

describe("openai-responses dialect details", () => {
  const modelWith = (delivery: WireDelivery) => {
    const wire = createWireFetch(() => delivery);
    return { wire, model: createOpenAIResponsesModel("gpt-5", { apiKey: "k", fetch: wire.fetch, env: {} }) };
  };
  const sse = (events: Record<string, unknown>[]): WireDelivery => ({
    status: 200,
    headers: { "content-type": "text/event-stream" },
    chunks: [Buffer.from(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""))],
  });
  const textBody = () => Buffer.from(openAIResponsesFixture.reply("text", false).body);

  it("sends a history as input items: messages, function_call, function_call_output, replayable reasoning", async () => {
    const { wire, model } = modelWith({ status: 200, chunks: [textBody()] });
    const reasoningTurn = {
      role: "assistant" as const,
      content: [
        {
          type: "reasoning" as const,
          text: "hmm",
          providerMetadata: { openai: { itemId: "rs_9", encryptedContent: "enc" } },
        },
        { type: "reasoning" as const, text: "not replayable" },
        { type: "text" as const, text: "ok" },
      ],
    };
    await model.doGenerate({
      ...suiteRequest("text"),
      messages: [...suiteHistory, reasoningTurn],
      toolChoice: "required",
    });
    const body = wire.requests[0]?.body as Record<string, unknown>;
    expect(body.input).toEqual([
      { role: "system", content: "Extra system note." },
      {
        role: "user",
        content: [
          { type: "input_text", text: "What is in this picture, and the weather?" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
        ],
      },
      { role: "assistant", content: "Let me check." },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"temp":21}' },
      { role: "user", content: "Thanks!" },
      { type: "reasoning", id: "rs_9", summary: [{ type: "summary_text", text: "hmm" }], encrypted_content: "enc" },
      { role: "assistant", content: "ok" },
    ]);
    expect(body.tool_choice).toBe("required");
  });

  it("reports cached and reasoning tokens, and keeps the reasoning item id for replay", async () => {
    const { model } = modelWith({
      status: 200,
      chunks: [Buffer.from(openAIResponsesFixture.reply("reasoning", false).body)],
    });
    const response = await model.doGenerate(suiteRequest("reasoning"));
    expect(response.usage).toEqual({
      inputTokens: 12,
      outputTokens: 40,
      totalTokens: 52,
      cachedInputTokens: 3,
      reasoningTokens: 31,
    });
    expect(response.content[0]).toMatchObject({ type: "reasoning", providerMetadata: { openai: { itemId: "rs_1" } } });
  });

  it("a clean close without response.completed is StreamTruncatedError, even after output_item.done", async () => {
    const reply = openAIResponsesFixture.reply("tool-call", true).body;
    const cut = reply.slice(0, reply.indexOf("event: response.completed"));
    expect(cut).toContain("response.output_item.done");
    const { model } = modelWith({ status: 200, chunks: [Buffer.from(cut)] });
    const { parts, error } = await collectStream(model.doStream(suiteRequest("tool-call")));
    expect(error).toBeInstanceOf(StreamTruncatedError);
    expect(parts.some((part) => part.type === "finish")).toBe(false);
  });

  it("response.failed and error events become typed errors", async () => {
    const failed = modelWith(
      sse([
        {
          type: "response.failed",
          response: { status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } },
        },
      ]),
    );
    expect((await collectStream(failed.model.doStream(suiteRequest("text")))).error).toBeInstanceOf(RateLimitError);
    const errored = modelWith(
      sse([{ type: "error", code: "context_length_exceeded", message: "too long", param: null }]),
    );
    expect((await collectStream(errored.model.doStream(suiteRequest("text")))).error).toBeInstanceOf(
      ContextTooLongError,
    );
  });

  it("response.incomplete for max_output_tokens finishes with reason length", async () => {
    const { model } = modelWith(
      sse([
        { type: "response.output_item.added", output_index: 0, item: { type: "message", content: [] } },
        { type: "response.output_text.delta", output_index: 0, delta: "Hel" },
        {
          type: "response.incomplete",
          response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [] },
        },
      ]),
    );
    const { parts } = await collectStream(model.doStream(suiteRequest("text")));
    const last = parts.at(-1);
    expect(last?.type === "finish" && last.response.finishReason).toBe("length");
  });
});
