import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { ProviderToolUnsupportedError } from "../../errors/provider-tool-error.js";
import type { ResponsePart } from "../model.js";
import { createAnthropicModel } from "./anthropic.js";
import { anthropicTools } from "./anthropic-tools.js";
import { geminiTools } from "./gemini-tools.js";
import { anthropicSse } from "./test-support/anthropic.fixture.js";
import { serverToolsJson, serverToolsSse } from "./test-support/anthropic-server-tools.fixture.js";
import { expectBodiesRebuilt, runAgent, timeTool } from "./test-support/provider-tool-support.js";
import { canonicalParts, checkStreamCoherent, collectStream, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

function modelAnswering(respond: () => WireDelivery, headers?: Record<string, string>) {
  const wire = createWireFetch(respond);
  const model = createAnthropicModel("claude-sonnet-4-5", {
    apiKey: "k",
    baseURL: "http://wire.invalid",
    fetch: wire.fetch,
    ...(headers === undefined ? {} : { headers }),
  });
  return { wire, model };
}

const hosted = [
  anthropicTools.webSearch({ maxUses: 3, allowedDomains: ["weather.example"], userLocation: { country: "FR" } }),
  anthropicTools.codeExecution(),
];

/*
 * Code execution (code_execution_20250825) as the Messages API documents it: Claude's bash command
 * in a `server_tool_use` named `bash_code_execution`, its result in a
 * `bash_code_execution_tool_result` block (stdout, stderr, return_code), then text.
 */
const command = { command: "python3 -c 'print(21 * 2)'" };
const execution = {
  type: "bash_code_execution_tool_result",
  tool_use_id: "srvtoolu_01Bash",
  content: { type: "bash_code_execution_result", stdout: "42\n", stderr: "", return_code: 0, content: [] },
};
const codeJson = JSON.stringify({
  id: "msg_01Code",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "server_tool_use", id: "srvtoolu_01Bash", name: "bash_code_execution", input: command },
    execution,
    { type: "text", text: "The answer is 42." },
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 900, output_tokens: 40, server_tool_use: { code_execution_requests: 1 } },
});
const codeSse = anthropicSse([
  [
    "message_start",
    {
      type: "message_start",
      message: { id: "msg_01Code", model: "claude-sonnet-4-5-20250929", content: [], usage: { input_tokens: 900 } },
    },
  ],
  [
    "content_block_start",
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "server_tool_use", id: "srvtoolu_01Bash", name: "bash_code_execution", input: {} },
    },
  ],
  [
    "content_block_delta",
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"command": "python3 -c ' },
    },
  ],
  [
    "content_block_delta",
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "'print(21 * 2)'\"}" } },
  ],
  ["content_block_stop", { type: "content_block_stop", index: 0 }],
  ["content_block_start", { type: "content_block_start", index: 1, content_block: execution }],
  ["content_block_stop", { type: "content_block_stop", index: 1 }],
  ["content_block_start", { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }],
  [
    "content_block_delta",
    { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "The answer is 42." } },
  ],
  ["content_block_stop", { type: "content_block_stop", index: 2 }],
  ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 40 } }],
  ["message_stop", { type: "message_stop" }],
] as never);

const codeParts: ResponsePart[] = [
  { type: "provider-tool-call", toolCallId: "srvtoolu_01Bash", toolName: "bash_code_execution", input: command },
  {
    type: "provider-tool-result",
    toolCallId: "srvtoolu_01Bash",
    toolName: "bash_code_execution",
    result: execution.content,
    isError: false,
  },
  { type: "text", text: "The answer is 42." },
];

describe("Anthropic server tools as provider tools", () => {
  it("the body carries web search and code execution after the function tools, with the code execution beta", async () => {
    const { wire, model } = modelAnswering(() => deliver({ status: 200, body: codeJson }), {
      "anthropic-beta": "other-beta",
    });
    await model.doGenerate({ ...suiteRequest("tool-call"), providerTools: hosted });
    const recorded = wire.requests[0];
    const tools = (recorded?.body as { tools: Record<string, unknown>[] }).tools;
    expect(tools.map((entry) => entry.name)).toEqual(["get_weather", "get_time", "web_search", "code_execution"]);
    expect(tools.slice(2)).toEqual([
      {
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["weather.example"],
        user_location: { type: "approximate", country: "FR" },
      },
      { type: "code_execution_20250825", name: "code_execution" },
    ]);
    expect(recorded?.headers["anthropic-beta"]).toBe("other-beta,code-execution-2025-08-25");
  });

  it("no beta header without code execution", async () => {
    const { wire, model } = modelAnswering(() => deliver({ status: 200, body: codeJson }));
    await model.doGenerate({ ...suiteRequest("text"), providerTools: [anthropicTools.webSearch()] });
    expect(wire.requests[0]?.headers["anthropic-beta"]).toBeUndefined();
  });

  it("code execution: JSON and streamed answers give the call, its result and the text; splits change nothing", async () => {
    const json = await modelAnswering(() => deliver({ status: 200, body: codeJson })).model.doGenerate(
      suiteRequest("text"),
    );
    expect(json.content).toEqual(codeParts);
    const reply = { status: 200, headers: { "content-type": "text/event-stream" }, body: codeSse };
    let splitAt: number[] = [];
    const { model } = modelAnswering(() => deliver(reply, splitAt));
    const { parts, error } = await collectStream(model.doStream(suiteRequest("text")));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual(codeParts);
    const reference = canonicalParts(parts);
    const differing: number[] = [];
    for (let offset = 1; offset < Buffer.byteLength(codeSse); offset++) {
      splitAt = [offset];
      const split = await collectStream(model.doStream(suiteRequest("text")));
      if (split.error !== undefined || canonicalParts(split.parts) !== reference) differing.push(offset);
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });

  it("a Gemini tool given to an Anthropic model is a typed error, and nothing is sent", async () => {
    const { wire, model } = modelAnswering(() => deliver({ status: 200, body: codeJson }));
    const agent = new Agent({ model, tools: [geminiTools.googleSearch()] });
    await expect(agent.run("Search")).rejects.toBeInstanceOf(ProviderToolUnsupportedError);
    expect(wire.requests).toHaveLength(0);
  });

  for (const mode of ["run", "stream"] as const) {
    it(`an agent ${mode} records the search, its sources and the citation; the function tool runs once; bodies rebuild`, async () => {
      const wire = createWireFetch((recorded) => {
        const streamed = (recorded.body as { stream?: boolean }).stream === true;
        if (wire.requests.length === 1) return deliver(streamed ? serverToolsSse() : serverToolsJson());
        const body = { content: [{ type: "text", text: "14:00" }], stop_reason: "end_turn", usage: {} };
        if (!streamed) return deliver({ status: 200, body: JSON.stringify(body) });
        return deliver({
          status: 200,
          body: anthropicSse([
            [
              "message_start",
              { type: "message_start", message: { id: "msg_3", model: "claude-sonnet-4-5", usage: {} } },
            ],
            [
              "content_block_start",
              { type: "content_block_start", index: 0, content_block: { type: "text", text: "14:00" } },
            ],
            ["content_block_stop", { type: "content_block_stop", index: 0 }],
            [
              "message_delta",
              { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
            ],
            ["message_stop", { type: "message_stop" }],
          ] as never),
        });
      });
      const model = createAnthropicModel("claude-sonnet-4-5", {
        apiKey: "k",
        baseURL: "http://wire.invalid",
        fetch: wire.fetch,
      });
      const { getTime, calls } = timeTool();
      const agent = new Agent({ model, tools: [anthropicTools.webSearch({ maxUses: 2 }), getTime] });
      const { result } = await runAgent(agent, mode, "Weather and time in Paris?");
      expect(result.output).toBe("14:00");
      expect(calls).toEqual([{ zone: "Europe/Paris" }]);
      const bookkeeping = result.log.filter((event) => event.type.startsWith("provider_"));
      expect(bookkeeping.map((event) => [event.type, (event.data as { toolName?: string }).toolName])).toEqual([
        ["provider_tool_call", "web_search"],
        ["provider_tool_result", "web_search"],
        ["provider_sources", undefined],
      ]);
      expect(bookkeeping[0]?.data).toMatchObject({ input: { query: "weather Paris today" } });
      expect((bookkeeping[1]?.data as { sources: unknown[] }).sources).toHaveLength(2);
      expect(bookkeeping[2]?.data).toMatchObject({
        sources: [{ url: "https://weather.example/paris", citedText: "Sunny, 21 °C, light wind from the west." }],
      });
      expectBodiesRebuilt(result.log, wire.requests);
      const second = wire.requests[1]?.body as { messages: { role: string; content: { type: string }[] }[] };
      expect(second.messages[1]?.content.map((block) => block.type)).toEqual(["text", "text", "tool_use"]);
    });
  }
});
