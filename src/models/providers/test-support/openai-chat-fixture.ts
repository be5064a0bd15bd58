import { expect } from "vitest";
import { createOpenAIChatModel } from "../openai-chat.js";
import type { DialectFixture, Scenario, WireReply } from "./dialect-fixture.js";

/** Wire bytes as OpenAI's Chat Completions API documents them (JSON answers, SSE chunks, error bodies). */
type Delta = Record<string, unknown>;

const sse = (payloads: readonly unknown[]): WireReply => ({
  status: 200,
  headers: { "content-type": "text/event-stream; charset=utf-8" },
  body: `${payloads.map((payload) => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`).join("")}`,
});

const chunk = (delta: Delta | null, finish: string | null = null, model = "gpt-4o-mini-2024-07-18") => ({
  id: "chatcmpl-123",
  object: "chat.completion.chunk",
  created: 1_726_000_000,
  model,
  choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage: null,
});

const usageChunk = (input: number, output: number, reasoning = 0) => ({
  ...chunk(null),
  usage: {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  },
});

const toolStart = (index: number, id: string, name: string) => ({
  tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }],
});
const toolArgs = (index: number, fragment: string) => ({ tool_calls: [{ index, function: { arguments: fragment } }] });

const streams: Record<Scenario, unknown[]> = {
  text: [
    chunk({ role: "assistant", content: "", refusal: null }),
    chunk({ content: "Hello, w" }),
    chunk({ content: "örld 👋" }),
    chunk({ content: " — ünïcode" }),
    chunk({}, "stop"),
    usageChunk(11, 7),
    "[DONE]",
  ],
  "tool-call": [
    chunk({ role: "assistant", content: null, ...toolStart(0, "call_w1", "get_weather") }),
    chunk(toolArgs(0, '{"ci')),
    chunk(toolArgs(0, 'ty": "Pa')),
    chunk(toolArgs(0, 'ris"}')),
    chunk({}, "tool_calls"),
    usageChunk(20, 9),
    "[DONE]",
  ],
  "parallel-tool-calls": [
    chunk({ role: "assistant", content: null, ...toolStart(0, "call_w1", "get_weather") }),
    chunk(toolStart(1, "call_t2", "get_time")),
    chunk(toolArgs(0, '{"city"')),
    chunk(toolArgs(1, '{"zone": "Asia/T')),
    chunk(toolArgs(0, ': "Paris"}')),
    chunk(toolArgs(1, 'ōkyō"}')),
    chunk({}, "tool_calls"),
    usageChunk(30, 18),
    "[DONE]",
  ],
  reasoning: [
    chunk({ role: "assistant", content: null, reasoning_content: "" }, null, "deepseek-reasoner"),
    chunk({ reasoning_content: "Let me think" }, null, "deepseek-reasoner"),
    chunk({ reasoning_content: " step by step." }, null, "deepseek-reasoner"),
    chunk({ content: "42", reasoning_content: null }, null, "deepseek-reasoner"),
    chunk({}, "stop", "deepseek-reasoner"),
    usageChunk(12, 40, 33),
    "[DONE]",
  ],
  "structured-output": [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: '{"answer":' }),
    chunk({ content: '42,"unit":"µ' }),
    chunk({ content: 'm"}' }),
    chunk({}, "stop"),
    usageChunk(15, 8),
    "[DONE]",
  ],
};

const completion = (message: Delta, finish: string, input: number, output: number, reasoning = 0) => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-123",
    object: "chat.completion",
    created: 1_726_000_000,
    model: "gpt-4o-mini-2024-07-18",
    choices: [
      { index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason: finish },
    ],
    usage: {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning },
    },
  }),
});

const call = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});

const completions: Record<Scenario, WireReply> = {
  text: completion({ content: "Hello, wörld 👋 — ünïcode" }, "stop", 11, 7),
  "tool-call": completion(
    { content: null, tool_calls: [call("call_w1", "get_weather", '{"city": "Paris"}')] },
    "tool_calls",
    20,
    9,
  ),
  "parallel-tool-calls": completion(
    {
      content: null,
      tool_calls: [
        call("call_w1", "get_weather", '{"city":"Paris"}'),
        call("call_t2", "get_time", '{"zone":"Asia/Tōkyō"}'),
      ],
    },
    "tool_calls",
    30,
    18,
  ),
  reasoning: completion({ content: "42", reasoning_content: "Let me think step by step." }, "stop", 12, 40, 33),
  "structured-output": completion({ content: '{"answer":42,"unit":"µm"}' }, "stop", 15, 8),
};

const errorTypes: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  403: ["invalid_request_error", "unsupported_country_region_territory"],
  404: ["invalid_request_error", "model_not_found"],
  408: ["timeout", null],
  409: ["conflict", null],
  413: ["invalid_request_error", "request_too_large"],
  429: ["requests", "rate_limit_exceeded"],
  500: ["server_error", null],
  502: ["server_error", null],
  503: ["server_error", null],
  504: ["server_error", null],
  529: ["server_error", null],
};

/** The OpenAI error body for a status. */
export function openAIErrorReply(status: number, headers?: Record<string, string>): WireReply {
  const [type, code] = errorTypes[status] ?? ["server_error", null];
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ error: { message: `Simulated error ${status}`, type, param: null, code } }),
  };
}

/** The shared suite's fixture for OpenAI Chat Completions. */
export const openAIChatFixture: DialectFixture = {
  name: "openai-chat",
  scenarios: ["text", "tool-call", "parallel-tool-calls", "reasoning", "structured-output"],
  createModel: ({ baseURL, apiKey, fetch }) =>
    createOpenAIChatModel("gpt-4o-mini", { baseURL: `${baseURL}/v1`, apiKey, fetch, env: {} }),
  reply: (scenario, stream) => (stream ? sse(streams[scenario]) : completions[scenario]),
  errorReply: openAIErrorReply,
  checkRequest(scenario, request) {
    const body = request.body as Record<string, unknown>;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-suite-key");
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.messages).toEqual([
      { role: "system", content: "You are the provider test suite." },
      { role: "user", content: `Scenario: ${scenario}` },
    ]);
    expect(body.tools).toMatchObject([
      { type: "function", function: { name: "get_weather" } },
      { type: "function", function: { name: "get_time" } },
    ]);
    expect(body.max_completion_tokens).toBe(1024);
    if (body.stream === true) expect(body.stream_options).toEqual({ include_usage: true });
    if (scenario === "structured-output") {
      expect(body.response_format).toMatchObject({
        type: "json_schema",
        json_schema: { name: "answer", strict: true },
      });
    } else {
      expect(body.response_format).toBeUndefined();
    }
  },
};
