import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { ProviderToolUnsupportedError } from "../../errors/provider-tool-error.js";
import type { ResponsePart } from "../model.js";
import { createGeminiModel } from "./gemini.js";
import { geminiTools } from "./gemini-tools.js";
import { openaiTools } from "./openai-tools.js";
import { geminiSse } from "./test-support/gemini.fixture.js";
import { expectBodiesRebuilt, runAgent, timeTool } from "./test-support/provider-tool-support.js";
import { canonicalParts, checkStreamCoherent, collectStream, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

/*
 * A generateContent answer that used Google Search and code execution, as the Gemini API documents
 * it: `executableCode` and `codeExecutionResult` parts among the text, and the search in the
 * candidate's `groundingMetadata` (queries, chunks with redirect URIs, supports tying text
 * segments to chunks). Streamed, the metadata arrives with the last chunk.
 */
const MODEL = "gemini-2.5-flash";
const grounding = {
  webSearchQueries: ["weather Paris today"],
  searchEntryPoint: { renderedContent: '<div class="container">weather Paris today</div>' },
  groundingChunks: [
    { web: { uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1", title: "weather.example" } },
    { web: { uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/XyZ2", title: "news.example" } },
  ],
  groundingSupports: [
    {
      segment: { startIndex: 0, endIndex: 21, text: "It is sunny in Paris," },
      groundingChunkIndices: [0],
      confidenceScores: [0.93],
    },
  ],
};
const code = { executableCode: { language: "PYTHON", code: "print(21 * 2)" } };
const codeResult = { codeExecutionResult: { outcome: "OUTCOME_OK", output: "42\n" } };
const call = { functionCall: { name: "get_time", args: { zone: "Europe/Paris" } } };
const usage = { promptTokenCount: 310, candidatesTokenCount: 48, totalTokenCount: 358 };
const chunk = (parts: unknown[], last = false) => ({
  candidates: [
    {
      content: { role: "model", parts },
      index: 0,
      ...(last ? { finishReason: "STOP", groundingMetadata: grounding } : {}),
    },
  ],
  ...(last ? { usageMetadata: usage } : {}),
  modelVersion: MODEL,
  responseId: "g-resp-1",
});
const json = JSON.stringify(chunk([code, codeResult, { text: "It is sunny in Paris, and 21 * 2 is 42." }, call], true));
const sse = geminiSse([
  chunk([code]),
  chunk([codeResult]),
  chunk([{ text: "It is sunny in Paris," }]),
  chunk([{ text: " and 21 * 2 is 42." }, call], true),
]);

const expected: ResponsePart[] = [
  {
    type: "provider-tool-call",
    toolCallId: "g-resp-1_google_search",
    toolName: "google_search",
    input: { queries: ["weather Paris today"] },
  },
  {
    type: "provider-tool-result",
    toolCallId: "g-resp-1_google_search",
    toolName: "google_search",
    result: grounding,
    isError: false,
    sources: [
      {
        type: "url",
        url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1",
        title: "weather.example",
      },
      {
        type: "url",
        url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/XyZ2",
        title: "news.example",
      },
    ],
  },
  {
    type: "source",
    source: {
      type: "url",
      url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1",
      title: "weather.example",
    },
  },
  {
    type: "provider-tool-call",
    toolCallId: "g-resp-1_code_execution_1",
    toolName: "code_execution",
    input: { language: "PYTHON", code: "print(21 * 2)" },
  },
  {
    type: "provider-tool-result",
    toolCallId: "g-resp-1_code_execution_1",
    toolName: "code_execution",
    result: { outcome: "OUTCOME_OK", output: "42\n" },
    isError: false,
  },
  { type: "text", text: "It is sunny in Paris, and 21 * 2 is 42." },
  { type: "tool-call", toolCallId: "id-1", toolName: "get_time", argsText: '{"zone":"Europe/Paris"}' },
];

function modelAnswering(respond: () => WireDelivery) {
  const wire = createWireFetch(respond);
  let counter = 0;
  const model = createGeminiModel(MODEL, {
    apiKey: "k",
    baseURL: "http://wire.invalid",
    fetch: wire.fetch,
    generateId: () => `id-${++counter}`,
  });
  return {
    wire,
    model,
    reset: () => {
      counter = 0;
    },
  };
}

describe("Gemini built-in tools as provider tools", () => {
  it("the body lists googleSearch, codeExecution and urlContext after the function declarations", async () => {
    const { wire, model } = modelAnswering(() => deliver({ status: 200, body: json }));
    await model.doGenerate({
      ...suiteRequest("tool-call"),
      providerTools: [geminiTools.googleSearch(), geminiTools.codeExecution(), geminiTools.urlContext()],
    });
    const tools = (wire.requests[0]?.body as { tools: Record<string, unknown>[] }).tools;
    expect(tools.map((entry) => Object.keys(entry)[0])).toEqual([
      "functionDeclarations",
      "googleSearch",
      "codeExecution",
      "urlContext",
    ]);
    expect(tools.slice(1)).toEqual([{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }]);
  });

  it("JSON and streamed answers give the search, its sources, the code run and the function call; splits change nothing", async () => {
    expect(
      (await modelAnswering(() => deliver({ status: 200, body: json })).model.doGenerate(suiteRequest("text"))).content,
    ).toEqual(expected);
    let splitAt: number[] = [];
    const { model, reset } = modelAnswering(() => deliver({ status: 200, body: sse }, splitAt));
    const { parts, error } = await collectStream(model.doStream(suiteRequest("text")));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual(expected);
    const reference = canonicalParts(parts);
    const differing: number[] = [];
    for (let offset = 1; offset < Buffer.byteLength(sse); offset++) {
      splitAt = [offset];
      reset();
      const split = await collectStream(model.doStream(suiteRequest("text")));
      if (split.error !== undefined || canonicalParts(split.parts) !== reference) differing.push(offset);
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });

  it("an OpenAI tool given to a Gemini model is a typed error, and nothing is sent", async () => {
    const { wire, model } = modelAnswering(() => deliver({ status: 200, body: json }));
    await expect(
      model.doGenerate({ ...suiteRequest("text"), providerTools: [openaiTools.webSearch()] }),
    ).rejects.toBeInstanceOf(ProviderToolUnsupportedError);
    expect(wire.requests).toHaveLength(0);
  });

  for (const mode of ["run", "stream"] as const) {
    it(`an agent ${mode} records the search, the code run and the cited source; the function tool runs once`, async () => {
      const { wire, model } = modelAnswering(() => {
        const streamed = wire.requests.at(-1)?.path.includes("stream") === true;
        if (wire.requests.length === 1) return deliver({ status: 200, body: streamed ? sse : json });
        const done = chunk([{ text: "14:00." }], true);
        return deliver({ status: 200, body: streamed ? geminiSse([done]) : JSON.stringify(done) });
      });
      const { getTime, calls } = timeTool();
      const agent = new Agent({ model, tools: [getTime, geminiTools.googleSearch(), geminiTools.codeExecution()] });
      const { result } = await runAgent(agent, mode, "Weather, 21*2 and time?");
      expect(calls).toEqual([{ zone: "Europe/Paris" }]);
      const types = result.log.map((event) => event.type);
      const first = types.indexOf("model_response");
      expect(types.slice(first, first + 7)).toEqual([
        "model_response",
        "provider_tool_call",
        "provider_tool_result",
        "provider_tool_call",
        "provider_tool_result",
        "provider_sources",
        "assistant_message",
      ]);
      const assistant = result.log[first + 6]?.data as { content: { type: string }[] };
      expect(assistant.content.map((part) => part.type)).toEqual(["text", "tool-call"]);
      expectBodiesRebuilt(result.log, wire.requests);
    });
  }
});
