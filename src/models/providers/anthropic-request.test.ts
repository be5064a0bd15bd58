import { describe, expect, it } from "vitest";
import type { AssistantPart, Message } from "../../session/messages.js";
import { isMessagePart, type ModelRequest } from "../model.js";
import { anthropicSupportsNativeOutput } from "./anthropic.js";
import { ANTHROPIC_OUTPUT_TOOL, buildAnthropicRequest } from "./anthropic-request.js";
import { parseAnthropicResponse } from "./anthropic-response.js";

const tool = { name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: {} } };

function build(request: Partial<ModelRequest>, structuredOutput: "native" | "tool" = "native") {
  return buildAnthropicRequest(
    { messages: [], tools: [], settings: {}, ...request },
    { modelId: "claude-sonnet-4-5", stream: false, structuredOutput },
  );
}

describe("buildAnthropicRequest", () => {
  it("merges consecutive tool results into one user message of tool_result blocks, before any text", () => {
    const messages: Message[] = [
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "toolu_1", toolName: "get_weather", args: { city: "Paris" } },
          { type: "tool-call", toolCallId: "toolu_2", toolName: "get_weather", args: { city: "Rome" } },
        ],
      },
      { role: "tool", toolCallId: "toolu_1", toolName: "get_weather", result: { temp: 21 }, isError: false },
      { role: "tool", toolCallId: "toolu_2", toolName: "get_weather", result: "city not found", isError: true },
      { role: "user", content: "Thanks" },
    ];
    const { body } = build({ messages, tools: [tool] });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: '{"temp":21}' },
          { type: "tool_result", tool_use_id: "toolu_2", content: "city not found", is_error: true },
          { type: "text", text: "Thanks" },
        ],
      },
    ]);
  });

  it("round-trips thinking signatures and redacted thinking from a response into the next request", () => {
    const answer = parseAnthropicResponse(
      {
        model: "claude-sonnet-4-5",
        content: [
          { type: "thinking", thinking: "Need the weather.", signature: "sig-abc" },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
          { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 5, output_tokens: 6 },
      },
      undefined,
    );
    const assistant: AssistantPart[] = answer.content.filter(isMessagePart).map((part) =>
      part.type === "tool-call"
        ? {
            type: "tool-call",
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            args: JSON.parse(part.argsText),
            providerMetadata: part.providerMetadata,
          }
        : part,
    );
    const { body } = build({
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: assistant },
        { role: "tool", toolCallId: "toolu_9", toolName: "get_weather", result: "sunny", isError: false },
      ],
      tools: [tool],
    });
    expect((body.messages as { content: unknown }[])[1]?.content).toEqual([
      { type: "thinking", thinking: "Need the weather.", signature: "sig-abc" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
      { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } },
    ]);
  });

  it("drops reasoning without an Anthropic signature and empty text", () => {
    const { body } = build({
      messages: [
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: [
            {
              type: "reasoning",
              text: "from another provider",
              providerMetadata: { gemini: { thoughtSignature: "x" } },
            },
            { type: "text", text: "" },
            { type: "text", text: "Hello" },
          ],
        },
      ],
    });
    expect((body.messages as { content: unknown }[])[1]?.content).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("sends images and files as image and document blocks (base64, data URLs, http URLs, plain text)", () => {
    const { body } = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
            { type: "image", data: "data:image/jpeg;base64,/9j/4AAQ", mediaType: "image/png" },
            { type: "image", data: "https://example.com/cat.png", mediaType: "image/png" },
            { type: "file", data: "JVBERi0xLjQ=", mediaType: "application/pdf", filename: "report.pdf" },
            { type: "file", data: Buffer.from("plain words").toString("base64"), mediaType: "text/plain" },
          ],
        },
      ],
    });
    expect((body.messages as { content: unknown }[])[0]?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" },
        title: "report.pdf",
      },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "plain words" } },
    ]);
  });

  it("puts instructions and system messages in `system`, and maps settings and tool choice", () => {
    const { body } = build({
      instructions: "Be brief.",
      messages: [
        { role: "system", content: "User is in Paris." },
        { role: "user", content: "Hi" },
      ],
      tools: [tool],
      toolChoice: { type: "tool", toolName: "get_weather" },
      settings: { temperature: 0.2, topP: 0.9, stopSequences: ["END"], maxOutputTokens: 300 },
    });
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: "Be brief.\n\nUser is in Paris.",
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ["END"],
      tool_choice: { type: "tool", name: "get_weather" },
      tools: [{ name: "get_weather", description: "Weather", input_schema: tool.inputSchema }],
    });
    expect(body.stream).toBeUndefined();
    expect(build({ tools: [tool], toolChoice: "required" }).body.tool_choice).toEqual({ type: "any" });
    expect(build({ tools: [tool], toolChoice: "none" }).body.tool_choice).toEqual({ type: "none" });
    expect(build({ toolChoice: "required" }).body.tool_choice).toBeUndefined();
  });

  it("defaults max_tokens, leaving room for a thinking budget, and copies wire options", () => {
    expect(build({}).body.max_tokens).toBe(8192);
    const thinking = { type: "enabled", budget_tokens: 2048 };
    const { body } = build({ settings: { providerOptions: { anthropic: { thinking, top_k: 5 } } } });
    expect(body).toMatchObject({ max_tokens: 2048 + 8192, thinking, top_k: 5 });
    const old = buildAnthropicRequest(
      { messages: [], tools: [], settings: {} },
      { modelId: "claude-3-haiku-20240307", stream: true, structuredOutput: "tool" },
    );
    expect(old.body).toMatchObject({ max_tokens: 4096, stream: true });
  });

  it("structured output: native sends output_config.format; tool mode forces a tool call", () => {
    const output = { type: "json" as const, name: "answer", schema: { type: "object", properties: {} } };
    expect(build({ output }).body.output_config).toEqual({ format: { type: "json_schema", schema: output.schema } });
    const forced = build({ output, instructions: "Be brief." }, "tool");
    expect(forced.outputToolName).toBe(ANTHROPIC_OUTPUT_TOOL);
    expect(forced.body.output_config).toBeUndefined();
    expect(forced.body.tool_choice).toEqual({ type: "tool", name: ANTHROPIC_OUTPUT_TOOL });
    expect(forced.body.tools).toEqual([
      { name: ANTHROPIC_OUTPUT_TOOL, description: "Give the final answer (answer).", input_schema: output.schema },
    ]);
    expect(forced.body.system).toContain(ANTHROPIC_OUTPUT_TOOL);
    const thinking = { providerOptions: { anthropic: { thinking: { type: "enabled", budget_tokens: 1024 } } } };
    expect(build({ output, settings: thinking }, "tool").body.tool_choice).toEqual({ type: "auto" });
  });
});

describe("anthropicSupportsNativeOutput", () => {
  it.each([
    ["claude-sonnet-4-5", true],
    ["claude-sonnet-4-5-20250929", true],
    ["claude-haiku-4-5", true],
    ["claude-opus-4-6", true],
    ["claude-opus-5", true],
    ["claude-sonnet-4-20250514", false],
    ["claude-opus-4-1-20250805", false],
    ["claude-opus-4-0", false],
    ["claude-3-7-sonnet-latest", false],
    ["claude-3-5-haiku-20241022", false],
  ])("%s → %s", (modelId, expected) => {
    expect(anthropicSupportsNativeOutput(modelId)).toBe(expected);
  });
});
