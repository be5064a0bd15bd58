import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { UnsupportedContentError } from "../../errors/unsupported-content-error.js";
import type { SessionEvent } from "../../session/events.js";
import type { ToolResultPart } from "../../session/messages.js";
import { projectMessages } from "../../session/projections.js";
import { tool } from "../../tools/tool.js";
import { toolContent } from "../../tools/tool-content.js";
import { rebuildRequest } from "./rebuild-request.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import type { DialectFixture, Scenario } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const PDF = "JVBERi0xLjQK";
const WAV = "UklGRiQAAABXQVZFZm10";
const radar: ToolResultPart[] = [
  { type: "image", data: PNG, mediaType: "image/png" },
  { type: "file", data: PDF, mediaType: "application/pdf", filename: "forecast.pdf" },
];

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function weatherTool(parts: readonly ToolResultPart[]) {
  return tool({
    name: "get_weather",
    description: "Weather for a city",
    input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: () => toolContent(parts, { result: "Radar of Paris" }),
  });
}

const timeTool = tool({
  name: "get_time",
  description: "Time in a zone",
  input: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
  execute: () => "12:00",
});

/** A run whose model calls the tools (`scenario`), then answers: the log, and the body of the second request. */
async function runWithTools(
  fixture: DialectFixture,
  parts: readonly ToolResultPart[],
  scenario: Scenario = "tool-call",
) {
  server.enqueue(fixture.reply(scenario, false), fixture.reply("text", false));
  const model = fixture.createModel({ baseURL: server.url, apiKey: "test-key" });
  const result = await new Agent({ model, retry: false, tools: [weatherTool(parts), timeTool] }).run("Weather?");
  expect(server.requests).toHaveLength(2);
  const second = server.requests[1]?.body as Record<string, unknown>;
  const requests = result.log.filter((event) => event.type === "model_request");
  // The body is rebuilt from the log alone, parts and all.
  expect(rebuildRequest(result.log, requests[1]?.seq ?? -1)).toEqual(second);
  return { log: result.log, body: second, callId: callIdOf(result.log, "get_weather") };
}

function callIdOf(log: readonly SessionEvent[], toolName: string): string {
  const event = log.find(
    (item) => item.type === "tool_result" && (item.data as { toolName: string }).toolName === toolName,
  );
  return (event?.data as { toolCallId: string }).toolCallId;
}

describe("a tool returns images and files to the model", () => {
  it("is recorded on tool_result.content and projected onto the tool message", async () => {
    const { log } = await runWithTools(anthropicFixture, radar);
    const recorded = log.find((event) => event.type === "tool_result");
    expect(recorded?.data).toMatchObject({ toolName: "get_weather", result: "Radar of Paris", isError: false });
    expect((recorded?.data as { content: unknown }).content).toEqual(radar);
    const message = projectMessages(log).find((item) => item.role === "tool");
    expect(message).toMatchObject({ role: "tool", toolName: "get_weather", result: "Radar of Paris", content: radar });
  });

  it("Anthropic: the tool_result block's content holds text, image and document blocks", async () => {
    const { body, callId } = await runWithTools(anthropicFixture, radar);
    const messages = body.messages as { role: string; content: unknown[] }[];
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: callId,
          content: [
            { type: "text", text: "Radar of Paris" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            {
              type: "document",
              source: { type: "base64", media_type: "application/pdf", data: PDF },
              title: "forecast.pdf",
            },
          ],
        },
      ],
    });
  });

  it("OpenAI Responses: function_call_output.output is a list of input_text, input_image, input_file", async () => {
    const { body, callId } = await runWithTools(openAIResponsesFixture, radar);
    const output = (body.input as { type?: string; call_id?: string; output?: unknown }[]).find(
      (item) => item.type === "function_call_output",
    );
    expect(output).toEqual({
      type: "function_call_output",
      call_id: callId,
      output: [
        { type: "input_text", text: "Radar of Paris" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
        { type: "input_file", filename: "forecast.pdf", file_data: `data:application/pdf;base64,${PDF}` },
      ],
    });
  });

  it("OpenAI Chat: the tool message carries text; a user message after all the turn's tool messages carries the parts", async () => {
    const { body, log } = await runWithTools(openAIChatFixture, radar, "parallel-tool-calls");
    const weatherId = callIdOf(log, "get_weather");
    const timeId = callIdOf(log, "get_time");
    const messages = body.messages as { role: string }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(messages.slice(2)).toEqual([
      {
        role: "tool",
        tool_call_id: weatherId,
        content: "Radar of Paris\n\n[2 attachment(s) of this result follow in a user message]",
      },
      { role: "tool", tool_call_id: timeId, content: "12:00" },
      {
        role: "user",
        content: [
          { type: "text", text: `Attachments of the result of tool call ${weatherId} (get_weather):` },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "file", file: { filename: "forecast.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
        ],
      },
    ]);
  });

  it("Gemini: the functionResponse holds the image and PDF as nested inlineData parts; audio follows as a sibling part", async () => {
    const { body } = await runWithTools(geminiFixture, [
      ...radar,
      { type: "text", text: "Rain from 3 pm." },
      { type: "audio", data: WAV, mediaType: "audio/wav" },
    ]);
    const contents = body.contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents[2]?.role).toBe("user");
    const [response, ...siblings] = contents[2]?.parts ?? [];
    expect(response?.functionResponse).toMatchObject({
      name: "get_weather",
      response: { output: "Radar of Paris", content: "Rain from 3 pm." },
      parts: [
        { inlineData: { mimeType: "image/png", data: PNG } },
        { inlineData: { mimeType: "application/pdf", data: PDF } },
      ],
    });
    expect(siblings).toEqual([{ inlineData: { mimeType: "audio/wav", data: WAV } }]);
  });

  it("Gemini: sibling parts come after every function response of the turn", async () => {
    const { body } = await runWithTools(
      geminiFixture,
      [{ type: "audio", data: WAV, mediaType: "audio/wav" }],
      "parallel-tool-calls",
    );
    const parts = (body.contents as { parts: Record<string, unknown>[] }[])[2]?.parts ?? [];
    expect(parts.map((part) => Object.keys(part)[0])).toEqual(["functionResponse", "functionResponse", "inlineData"]);
  });

  it("a part the provider cannot take in a tool result fails the run before the next request is sent", async () => {
    for (const fixture of [anthropicFixture, openAIResponsesFixture]) {
      server.reset();
      server.enqueue(fixture.reply("tool-call", false));
      server.setFallback(fixture.reply("text", false));
      const model = fixture.createModel({ baseURL: server.url, apiKey: "test-key" });
      const audio = weatherTool([{ type: "audio", data: WAV, mediaType: "audio/wav" }]);
      const error = await new Agent({ model, tools: [audio] }).run("Weather?").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnsupportedContentError);
      expect(error).toMatchObject({ partType: "audio", mediaType: "audio/wav", place: "tool_result" });
      expect(server.requests).toHaveLength(1);
    }
  });

  it("a malformed part fails the call, and the model is told why", async () => {
    server.enqueue(anthropicFixture.reply("tool-call", false), anthropicFixture.reply("text", false));
    const model = anthropicFixture.createModel({ baseURL: server.url, apiKey: "test-key" });
    const broken = weatherTool([{ type: "image", data: "", mediaType: "image/png" }]);
    const result = await new Agent({ model, retry: false, tools: [broken] }).run("Weather?");
    const recorded = result.log.find((event) => event.type === "tool_result")?.data as Record<string, unknown>;
    expect(recorded.isError).toBe(true);
    expect(recorded.result).toContain("toolContent: part 0 needs base64 data");
    expect(recorded.content).toBeUndefined();
  });
});
