import { expect } from "vitest";
import { createAnthropicModel } from "../anthropic.js";
import {
  type DialectFixture,
  type RecordedRequest,
  type Scenario,
  scenarioExpectations,
  suiteOutputSchema,
  type WireReply,
} from "./dialect-fixture.js";

const MODEL = "claude-sonnet-4-5-20250929";
const SIGNATURE =
  "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7XTVhqIj1hHQX2Z5f3I8ajS7sF7vmFVNmzWUn4uLwPuP5H4Bqg==";

type Event = readonly [name: string, data: unknown];

/** Server-sent events exactly as the Messages API frames them: an `event:` line, a `data:` line, a blank line. */
export function anthropicSse(events: readonly Event[]): string {
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

const json = (body: unknown): WireReply => ({
  status: 200,
  headers: { "content-type": "application/json", "request-id": "req_011CSHoEeqs5C35K2UUqR7Fy" },
  body: JSON.stringify(body),
});
const sse = (events: readonly Event[]): WireReply => ({
  status: 200,
  headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  body: anthropicSse(events),
});

function usage(scenario: Scenario) {
  const { inputTokens, outputTokens } = scenarioExpectations[scenario].usage;
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  };
}

const toolUse = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });

/** The content blocks each scenario answers with, plus how each block is streamed. */
const scenarioBlocks: Record<Scenario, { block: Record<string, unknown>; deltas: Record<string, unknown>[] }[]> = {
  text: [
    {
      block: { type: "text", text: scenarioExpectations.text.text },
      deltas: ["Hello, w", "örld 👋", " — ünïcode"].map((text) => ({ type: "text_delta", text })),
    },
  ],
  "tool-call": [
    {
      block: toolUse("toolu_01A09q90qw90lq917835lq9", "get_weather", { city: "Paris" }),
      deltas: ["", '{"ci', 'ty": "Par', 'is"}'].map((partial_json) => ({ type: "input_json_delta", partial_json })),
    },
  ],
  "parallel-tool-calls": [
    {
      block: toolUse("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", { city: "Paris" }),
      deltas: ['{"city":', ' "Paris"}'].map((partial_json) => ({ type: "input_json_delta", partial_json })),
    },
    {
      block: toolUse("toolu_01KkDn4mN1cDmq3bHcWZ9S2c", "get_time", { zone: "Asia/Tōkyō" }),
      deltas: ['{"zone": "As', "ia/Tō", 'kyō"}'].map((partial_json) => ({ type: "input_json_delta", partial_json })),
    },
  ],
  reasoning: [
    {
      block: { type: "thinking", thinking: scenarioExpectations.reasoning.reasoning, signature: SIGNATURE },
      deltas: [
        { type: "thinking_delta", thinking: "Let me think " },
        { type: "thinking_delta", thinking: "step by step." },
        { type: "signature_delta", signature: SIGNATURE },
      ],
    },
    { block: { type: "text", text: "42" }, deltas: [{ type: "text_delta", text: "42" }] },
  ],
  "structured-output": [
    {
      block: { type: "text", text: scenarioExpectations["structured-output"].text },
      deltas: ['{"answer":4', '2,"unit":"µ', 'm"}'].map((text) => ({ type: "text_delta", text })),
    },
  ],
};

const stopReasons: Record<Scenario, string> = {
  text: "end_turn",
  "tool-call": "tool_use",
  "parallel-tool-calls": "tool_use",
  reasoning: "end_turn",
  "structured-output": "end_turn",
};

function jsonReply(scenario: Scenario): WireReply {
  return json({
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: MODEL,
    content: scenarioBlocks[scenario].map(({ block }) => block),
    stop_reason: stopReasons[scenario],
    stop_sequence: null,
    usage: usage(scenario),
  });
}

/** The empty form a block starts with in a stream (its content then arrives as deltas). */
function startOf(block: Record<string, unknown>): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "" };
    default:
      return { ...block, input: {} };
  }
}

function streamReply(scenario: Scenario): WireReply {
  const full = usage(scenario);
  const events: Event[] = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_01XFDUDYJgAACzvnptvVoYEL",
          type: "message",
          role: "assistant",
          model: MODEL,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...full, output_tokens: 1 },
        },
      },
    ],
  ];
  scenarioBlocks[scenario].forEach(({ block, deltas }, index) => {
    events.push(["content_block_start", { type: "content_block_start", index, content_block: startOf(block) }]);
    if (index === 0) events.push(["ping", { type: "ping" }]);
    for (const delta of deltas) events.push(["content_block_delta", { type: "content_block_delta", index, delta }]);
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: stopReasons[scenario], stop_sequence: null },
        usage: { output_tokens: full.output_tokens },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  );
  return sse(events);
}

/** The error type Anthropic documents for each HTTP status. */
const errorTypes: Record<number, [type: string, message: string]> = {
  400: ["invalid_request_error", 'messages: roles must alternate between "user" and "assistant"'],
  401: ["authentication_error", "invalid x-api-key"],
  403: ["permission_error", "Your API key does not have permission to use the specified resource."],
  404: ["not_found_error", "The requested resource could not be found."],
  413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
  429: ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."],
  500: ["api_error", "An unexpected error has occurred internal to Anthropic's systems."],
  504: ["timeout_error", "Request timed out."],
  529: ["overloaded_error", "Overloaded"],
};

/** The Anthropic dialect for the shared provider suite. */
export const anthropicFixture: DialectFixture = {
  name: "anthropic",
  scenarios: ["text", "tool-call", "parallel-tool-calls", "reasoning", "structured-output"],
  createModel: ({ baseURL, apiKey, fetch }) =>
    createAnthropicModel("claude-sonnet-4-5", fetch === undefined ? { baseURL, apiKey } : { baseURL, apiKey, fetch }),
  reply: (scenario, stream) => (stream ? streamReply(scenario) : jsonReply(scenario)),
  errorReply(status, headers) {
    const [type, message] = errorTypes[status] ?? (status >= 500 ? errorTypes[500] : errorTypes[400]) ?? ["", ""];
    return {
      status,
      headers: { "content-type": "application/json", "request-id": "req_011CSHoEeqs5C35K2UUqR7Fy", ...headers },
      body: JSON.stringify({ type: "error", error: { type, message }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" }),
    };
  },
  checkRequest(scenario: Scenario, request: RecordedRequest) {
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("sk-suite-key");
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers.authorization).toBeUndefined();
    const body = request.body as Record<string, unknown>;
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.system).toBe("You are the provider test suite.");
    expect(body.max_tokens).toBe(1024);
    expect([true, undefined]).toContain(body.stream);
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: `Scenario: ${scenario}` }] }]);
    const tools = body.tools as { name: string; input_schema: unknown }[];
    expect(tools.map((tool) => tool.name)).toEqual(["get_weather", "get_time"]);
    expect(tools[0]?.input_schema).toMatchObject({ type: "object", required: ["city"] });
    if (scenario === "structured-output") {
      expect(body.output_config).toEqual({ format: { type: "json_schema", schema: suiteOutputSchema } });
    } else {
      expect(body.output_config).toBeUndefined();
    }
  },
};
