import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { ProviderToolUnsupportedError } from "../../errors/provider-tool-error.js";
import { tool } from "../../tools/tool.js";
import type { ResponsePart } from "../model.js";
import { anthropicTools } from "./anthropic-tools.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import { openaiTools } from "./openai-tools.js";
import {
  finalAnswer,
  nativeAnswerText,
  nativeToolsJson,
  nativeToolsSse,
} from "./test-support/openai-native-tools.fixture.js";
import { expectBodiesRebuilt, runAgent, timeTool } from "./test-support/provider-tool-support.js";
import { canonicalParts, checkStreamCoherent, collectStream, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

const settings = (fetch: typeof globalThis.fetch) => ({ apiKey: "k", baseURL: "http://wire.invalid/v1", fetch });
const hosted = [
  openaiTools.webSearch({ searchContextSize: "low", userLocation: { country: "FR", city: "Paris" } }),
  openaiTools.fileSearch({ vectorStoreIds: ["vs_1"], maxNumResults: 4, ranking: { scoreThreshold: 0.5 } }),
  openaiTools.codeInterpreter({ fileIds: ["file-a"] }),
];
const request = { ...suiteRequest("tool-call"), providerTools: hosted };

function modelAnswering(respond: () => WireDelivery) {
  const wire = createWireFetch(respond);
  return { wire, model: createOpenAIResponsesModel("gpt-5-mini", settings(wire.fetch)) };
}

const expectedParts: ResponsePart[] = [
  {
    type: "provider-tool-call",
    toolCallId: "ws_68e4a1",
    toolName: "web_search",
    input: { type: "search", query: "weather Paris today" },
  },
  {
    type: "provider-tool-result",
    toolCallId: "ws_68e4a1",
    toolName: "web_search",
    result: {
      status: "completed",
      sources: [
        { type: "url", url: "https://weather.example/paris" },
        { type: "url", url: "https://news.example/paris-forecast" },
      ],
    },
    isError: false,
    sources: [
      { type: "url", url: "https://weather.example/paris" },
      { type: "url", url: "https://news.example/paris-forecast" },
    ],
  },
  {
    type: "provider-tool-call",
    toolCallId: "fs_68e4a2",
    toolName: "file_search",
    input: { queries: ["umbrella policy"] },
  },
  {
    type: "provider-tool-result",
    toolCallId: "fs_68e4a2",
    toolName: "file_search",
    result: {
      status: "completed",
      results: [
        {
          file_id: "file-9Qx",
          filename: "travel-policy.pdf",
          score: 0.91,
          text: "Umbrellas are refunded.",
          attributes: {},
        },
      ],
    },
    isError: false,
    sources: [{ type: "file", fileId: "file-9Qx", filename: "travel-policy.pdf" }],
  },
  {
    type: "provider-tool-call",
    toolCallId: "ci_68e4a3",
    toolName: "code_interpreter",
    input: { code: "print(21 * 2)", containerId: "cntr_68e4" },
  },
  {
    type: "provider-tool-result",
    toolCallId: "ci_68e4a3",
    toolName: "code_interpreter",
    result: { status: "completed", outputs: [{ type: "logs", logs: "42\n" }] },
    isError: false,
  },
  { type: "text", text: nativeAnswerText },
  { type: "source", source: { type: "url", url: "https://weather.example/paris", title: "Paris weather today" } },
  { type: "source", source: { type: "file", fileId: "file-9Qx", filename: "travel-policy.pdf" } },
  {
    type: "tool-call",
    toolCallId: "call_Zt81",
    toolName: "get_time",
    argsText: '{"zone":"Europe/Paris"}',
    providerMetadata: { openai: { itemId: "fc_68e4a5" } },
  },
];

describe("OpenAI hosted tools (Responses API)", () => {
  it("the body carries the hosted tools after the function tools, and includes what brings their results back", async () => {
    const { wire, model } = modelAnswering(() => deliver(nativeToolsJson()));
    await model.doGenerate(request);
    const body = wire.requests[0]?.body as { tools: Record<string, unknown>[]; include: string[] };
    expect(body.tools.map((entry) => entry.name ?? entry.type)).toEqual([
      "get_weather",
      "get_time",
      "web_search",
      "file_search",
      "code_interpreter",
    ]);
    expect(body.tools.slice(2)).toEqual([
      {
        type: "web_search",
        search_context_size: "low",
        user_location: { type: "approximate", country: "FR", city: "Paris" },
      },
      {
        type: "file_search",
        vector_store_ids: ["vs_1"],
        max_num_results: 4,
        ranking_options: { score_threshold: 0.5 },
      },
      { type: "code_interpreter", container: { type: "auto", file_ids: ["file-a"] } },
    ]);
    expect(body.include).toEqual(
      expect.arrayContaining([
        "web_search_call.action.sources",
        "file_search_call.results",
        "code_interpreter_call.outputs",
      ]),
    );
  });

  it("JSON: each hosted call and its result, the text, its cited sources, then the function call", async () => {
    const { model } = modelAnswering(() => deliver(nativeToolsJson()));
    const response = await model.doGenerate(request);
    expect(response.content).toEqual(expectedParts);
    expect(response.finishReason).toBe("tool-calls");
  });

  it("streamed: the same parts as JSON, coherent deltas, and a two-chunk split at every 7th byte gives identical parts", async () => {
    const reply = nativeToolsSse();
    let splitAt: number[] = [];
    const { model } = modelAnswering(() => deliver(reply, splitAt));
    const { parts, error } = await collectStream(model.doStream(request));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual(expectedParts);
    const reference = canonicalParts(parts);
    const differing: number[] = [];
    const length = Buffer.byteLength(reply.body);
    for (let offset = 1; offset < length; offset += 7) {
      splitAt = [offset];
      const split = await collectStream(model.doStream(request));
      if (split.error !== undefined || canonicalParts(split.parts) !== reference) differing.push(offset);
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });

  it("a tool of another provider, or a hosted tool Chat Completions lacks, is a typed error and nothing is sent", async () => {
    const { wire, model } = modelAnswering(() => deliver(nativeToolsJson()));
    await expect(model.doGenerate({ ...request, providerTools: [anthropicTools.webSearch()] })).rejects.toMatchObject({
      code: "provider_tool_unsupported",
      toolId: "anthropic.web_search",
      api: "openai-responses",
    });
    const chatWire = createWireFetch(() => deliver(nativeToolsJson()));
    const chat = createOpenAIChatModel("gpt-4o-search-preview", settings(chatWire.fetch));
    const refused = chat.doGenerate({
      ...request,
      providerTools: [openaiTools.fileSearch({ vectorStoreIds: ["vs_1"] })],
    });
    await expect(refused).rejects.toBeInstanceOf(ProviderToolUnsupportedError);
    expect(wire.requests).toHaveLength(0);
    expect(chatWire.requests).toHaveLength(0);
  });

  it("Chat Completions: web search is sent as web_search_options; url_citation annotations become sources (JSON and SSE)", async () => {
    const annotation = {
      type: "url_citation",
      url_citation: { start_index: 0, end_index: 6, url: "https://weather.example/paris", title: "Paris weather" },
    };
    const source = {
      type: "source",
      source: { type: "url", url: "https://weather.example/paris", title: "Paris weather" },
    };
    const json = JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4o-search-preview",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Sunny.", annotations: [annotation] },
          finish_reason: "stop",
        },
      ],
    });
    const chunks = [
      {
        id: "chatcmpl-2",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { role: "assistant", content: "Sunny." } }],
      },
      {
        id: "chatcmpl-2",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { annotations: [annotation] } }],
      },
      { id: "chatcmpl-2", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ];
    const sse = `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
    const chatWire = createWireFetch((recorded) =>
      deliver({ status: 200, body: (recorded.body as { stream?: boolean }).stream === true ? sse : json }),
    );
    const chat = createOpenAIChatModel("gpt-4o-search-preview", settings(chatWire.fetch));
    const search = {
      ...suiteRequest("text"),
      providerTools: [openaiTools.webSearch({ searchContextSize: "high", userLocation: { city: "Paris" } })],
    };
    const answer = await chat.doGenerate(search);
    expect((chatWire.requests[0]?.body as Record<string, unknown>).web_search_options).toEqual({
      search_context_size: "high",
      user_location: { type: "approximate", approximate: { city: "Paris" } },
    });
    expect(answer.content).toEqual([{ type: "text", text: "Sunny." }, source]);
    const { parts, error } = await collectStream(chat.doStream(search));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual([{ type: "text", text: "Sunny." }, source]);
  });
});

describe("an agent with OpenAI hosted tools", () => {
  for (const mode of ["run", "stream"] as const) {
    it(`${mode}: records the hosted calls, results and sources, runs the function tool once, and rebuilds the body`, async () => {
      const wire = createWireFetch((recorded) => {
        const streamed = (recorded.body as { stream?: boolean }).stream === true;
        if (wire.requests.length === 1) return deliver(streamed ? nativeToolsSse() : nativeToolsJson());
        return deliver(finalAnswer(streamed));
      });
      const model = createOpenAIResponsesModel("gpt-5-mini", settings(wire.fetch));
      const { getTime, calls } = timeTool();
      const agent = new Agent({ model, tools: [getTime, ...hosted] });
      const { result, streamedTypes } = await runAgent(agent, mode, "Weather, policy and time?");
      const log = result.log;
      expect(calls).toEqual([{ zone: "Europe/Paris" }]);
      const types = log.map((event) => event.type);
      const first = types.indexOf("model_response");
      expect(types.slice(first, first + 9)).toEqual([
        "model_response",
        "provider_tool_call",
        "provider_tool_result",
        "provider_tool_call",
        "provider_tool_result",
        "provider_tool_call",
        "provider_tool_result",
        "provider_sources",
        "assistant_message",
      ]);
      const searched = log.find((event) => event.type === "provider_tool_result");
      expect(searched?.data).toMatchObject({
        model: "openai:gpt-5-mini-2025-08-07",
        toolCallId: "ws_68e4a1",
        toolName: "web_search",
        sources: [{ url: "https://weather.example/paris" }, { url: "https://news.example/paris-forecast" }],
      });
      expect(log.find((event) => event.type === "provider_sources")?.data).toMatchObject({
        sources: [
          { type: "url", title: "Paris weather today" },
          { type: "file", fileId: "file-9Qx" },
        ],
      });
      expect(log.find((event) => event.type === "tool_definitions")?.data).toMatchObject({ providerTools: hosted });
      // The continuation sends the cited text as plain assistant text, never the hosted items.
      const second = wire.requests[1]?.body as { input: Record<string, unknown>[] };
      expect(second.input.map((item) => item.type ?? item.role)).toEqual([
        "user",
        "assistant",
        "function_call",
        "function_call_output",
      ]);
      expect(second.input[1]).toEqual({ role: "assistant", content: nativeAnswerText });
      expectBodiesRebuilt(log, wire.requests);
      if (mode === "stream") expect(streamedTypes).toContain("provider_tool_result");
    });
  }

  it("refuses a provider tool of another provider with a typed error: no retry, no request sent", async () => {
    const wire = createWireFetch(() => deliver(nativeToolsJson()));
    const model = createOpenAIResponsesModel("gpt-5-mini", settings(wire.fetch));
    const agent = new Agent({ model, tools: [anthropicTools.codeExecution()] });
    await expect(agent.run("Run some code")).rejects.toBeInstanceOf(ProviderToolUnsupportedError);
    expect(wire.requests).toHaveLength(0);
  });

  it("a provider tool named like a function tool is a definition error", () => {
    const webSearch = tool({ name: "web_search", description: "mine", input: { type: "object" }, execute: () => "" });
    expect(() => new Agent({ model: "test", tools: [webSearch, openaiTools.webSearch()] })).toThrow(/web_search/);
  });
});
