import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { createAnthropicModel } from "./anthropic.js";
import { anthropicSse } from "./test-support/anthropic.fixture.js";
import { serverToolsExpected, serverToolsJson, serverToolsSse } from "./test-support/anthropic-server-tools.fixture.js";
import { timeTool } from "./test-support/provider-tool-support.js";
import {
  canonicalParts,
  checkStreamCoherent,
  collectStream,
  normalizeResponse,
  suiteRequest,
} from "./test-support/suite-support.js";
import { createWireFetch, deliver, type WireDelivery } from "./test-support/wire-fetch.js";

function modelAnswering(respond: () => WireDelivery) {
  const wire = createWireFetch(respond);
  return {
    wire,
    model: createAnthropicModel("claude-sonnet-4-5", {
      apiKey: "k",
      baseURL: "http://wire.invalid",
      fetch: wire.fetch,
    }),
  };
}

const request = suiteRequest("tool-call");

describe("Anthropic server tools (server_tool_use, web_search_tool_result) parse in both modes", () => {
  it("JSON: the text blocks and the client tool call; the search the API ran as a provider tool call, result and cited source", async () => {
    const { model } = modelAnswering(() => deliver(serverToolsJson()));
    const response = await model.doGenerate(request);
    expect(normalizeResponse(response)).toMatchObject(serverToolsExpected);
    expect(response.content.map((part) => part.type)).toEqual([
      "text",
      "provider-tool-call",
      "provider-tool-result",
      "text",
      "source",
      "tool-call",
    ]);
    expect(response.content[1]).toEqual({
      type: "provider-tool-call",
      toolCallId: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      toolName: "web_search",
      input: { query: "weather Paris today" },
    });
    expect(response.content[2]).toMatchObject({
      type: "provider-tool-result",
      toolCallId: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      toolName: "web_search",
      isError: false,
      sources: [
        { type: "url", url: "https://weather.example/paris", title: "Paris weather today" },
        { type: "url", url: "https://news.example/paris-forecast", title: "Forecast: a sunny week in Paris" },
      ],
    });
    expect(response.content[4]).toEqual({
      type: "source",
      source: {
        type: "url",
        url: "https://weather.example/paris",
        title: "Paris weather today",
        citedText: "Sunny, 21 °C, light wind from the west.",
      },
    });
    expect(response.usage).toMatchObject({ inputTokens: 2_179, outputTokens: 187 });
  });

  it("streamed: coherent parts, the same answer as JSON, no tool call started for the server tool", async () => {
    const { model } = modelAnswering(() => deliver(serverToolsSse()));
    const { parts, error } = await collectStream(model.doStream(request));
    expect(error).toBeUndefined();
    const response = checkStreamCoherent(parts);
    expect(normalizeResponse(response)).toMatchObject(serverToolsExpected);
    const json = await modelAnswering(() => deliver(serverToolsJson())).model.doGenerate(request);
    expect(normalizeResponse(response)).toEqual(normalizeResponse(json));
    const started = parts.flatMap((part) => (part.type === "tool-call-start" ? [part.toolName] : []));
    expect(started).toEqual(["get_time"]);
  });

  it("streamed: every two-chunk split gives the identical parts", async () => {
    const reply = serverToolsSse();
    let splitAt: number[] = [];
    const { model } = modelAnswering(() => deliver(reply, splitAt));
    const reference = canonicalParts((await collectStream(model.doStream(request))).parts);
    const differing: number[] = [];
    for (let offset = 1; offset < Buffer.byteLength(reply.body); offset++) {
      splitAt = [offset];
      const { parts, error } = await collectStream(model.doStream(request));
      if (error !== undefined || canonicalParts(parts) !== reference) differing.push(offset);
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });

  it("a search that failed (web_search_tool_result_error) is an errored provider tool result; an MCP tool block is skipped", async () => {
    const events: [string, unknown][] = [
      ["message_start", { type: "message_start", message: { id: "msg_2", model: "claude-sonnet-4-5", usage: {} } }],
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: {} },
        },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"x"}' } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 1,
          content_block: {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_2",
            content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
          },
        },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 2,
          content_block: { type: "mcp_tool_use", id: "mcptoolu_1", name: "lookup", server_name: "docs", input: {} },
        },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"q":1}' } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 2 }],
      ["content_block_start", { type: "content_block_start", index: 3, content_block: { type: "text", text: "" } }],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "No luck." } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 3 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } }],
      ["message_stop", { type: "message_stop" }],
    ];
    const { model } = modelAnswering(() => deliver({ status: 200, body: anthropicSse(events as never) }));
    const { parts, error } = await collectStream(model.doStream(request));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual([
      { type: "provider-tool-call", toolCallId: "srvtoolu_2", toolName: "web_search", input: { query: "x" } },
      {
        type: "provider-tool-result",
        toolCallId: "srvtoolu_2",
        toolName: "web_search",
        result: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
        isError: true,
      },
      { type: "text", text: "No luck." },
    ]);
  });

  for (const mode of ["run", "stream"] as const) {
    it(`an agent ${mode} whose model searched the web completes, and the client tool runs once`, async () => {
      const bodies: unknown[] = [];
      const wire = createWireFetch((recorded) => {
        bodies.push(recorded.body);
        const streamed = (recorded.body as { stream?: boolean }).stream === true;
        if (bodies.length === 1) return deliver(streamed ? serverToolsSse() : serverToolsJson());
        const done = [
          ["message_start", { type: "message_start", message: { id: "msg_3", model: "claude-sonnet-4-5", usage: {} } }],
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
          [
            "content_block_delta",
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "14:00" } },
          ],
          ["content_block_stop", { type: "content_block_stop", index: 0 }],
          ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }],
          ["message_stop", { type: "message_stop" }],
        ] as const;
        return streamed
          ? deliver({ status: 200, body: anthropicSse(done as never) })
          : deliver({
              status: 200,
              body: JSON.stringify({ content: [{ type: "text", text: "14:00" }], stop_reason: "end_turn", usage: {} }),
            });
      });
      const model = createAnthropicModel("claude-sonnet-4-5", {
        apiKey: "k",
        baseURL: "http://wire.invalid",
        fetch: wire.fetch,
      });
      const { getTime, calls } = timeTool();
      const agent = new Agent({ model, tools: [getTime] });
      let output: unknown;
      if (mode === "run") output = (await agent.run("Weather and time in Paris?")).output;
      else {
        const stream = agent.stream("Weather and time in Paris?");
        for await (const _event of stream);
        output = (await stream.result).output;
      }
      expect(output).toBe("14:00");
      expect(calls).toEqual([{ zone: "Europe/Paris" }]);
      const second = bodies[1] as { messages: { role: string; content: { type: string }[] }[] };
      expect(second.messages[1]).toMatchObject({
        role: "assistant",
        content: [{ type: "text" }, { type: "text" }, { type: "tool_use", name: "get_time" }],
      });
    });
  }
});
