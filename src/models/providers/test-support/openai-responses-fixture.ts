import { expect } from "vitest";
import { createOpenAIResponsesModel } from "../openai-responses.js";
import type { DialectFixture, Scenario, WireReply } from "./dialect-fixture.js";
import { openAIErrorReply } from "./openai-chat-fixture.js";

/** Wire bytes as OpenAI's Responses API documents them: semantic SSE events, response objects. */
type Item = Record<string, unknown>;

const usage = (input: number, output: number, reasoning = 0) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 3 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: reasoning },
  total_tokens: input + output,
});

const responseObject = (status: string, output: Item[], tokens?: ReturnType<typeof usage>) => ({
  id: "resp_67ccd2bed1ec8190b14f964abc054267",
  object: "response",
  created_at: 1_741_476_542,
  status,
  error: null,
  incomplete_details: null,
  model: "gpt-5-mini-2025-08-07",
  output,
  usage: tokens ?? null,
});

const message = (text: string): Item => ({
  type: "message",
  id: "msg_1",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
});
const functionCall = (id: string, callId: string, name: string, args: string): Item => ({
  type: "function_call",
  id,
  call_id: callId,
  name,
  arguments: args,
  status: "completed",
});
const reasoning = (text: string): Item => ({
  type: "reasoning",
  id: "rs_1",
  summary: [{ type: "summary_text", text }],
});

type Step =
  | { kind: "text"; index: number; deltas: string[] }
  | { kind: "call"; index: number; item: Item; deltas: string[] }
  | { kind: "reasoning"; index: number; deltas: string[] };

function streamOf(steps: Step[], output: Item[], tokens: ReturnType<typeof usage>): WireReply {
  const events: Item[] = [];
  const emit = (type: string, fields: Item) => events.push({ type, sequence_number: events.length, ...fields });
  emit("response.created", { response: responseObject("in_progress", []) });
  emit("response.in_progress", { response: responseObject("in_progress", []) });
  for (const step of steps) {
    const output_index = step.index;
    const done = output[step.index] ?? {};
    if (step.kind === "call") {
      emit("response.output_item.added", {
        output_index,
        item: { ...step.item, arguments: "", status: "in_progress" },
      });
      for (const delta of step.deltas) {
        emit("response.function_call_arguments.delta", { item_id: step.item.id, output_index, delta });
      }
      emit("response.function_call_arguments.done", {
        item_id: step.item.id,
        output_index,
        arguments: step.deltas.join(""),
      });
    } else if (step.kind === "reasoning") {
      emit("response.output_item.added", { output_index, item: { type: "reasoning", id: "rs_1", summary: [] } });
      emit("response.reasoning_summary_part.added", { item_id: "rs_1", output_index, summary_index: 0 });
      for (const delta of step.deltas) {
        emit("response.reasoning_summary_text.delta", { item_id: "rs_1", output_index, summary_index: 0, delta });
      }
      emit("response.reasoning_summary_text.done", { item_id: "rs_1", output_index, summary_index: 0 });
    } else {
      const item_id = "msg_1";
      emit("response.output_item.added", {
        output_index,
        item: { ...message(""), content: [], status: "in_progress" },
      });
      emit("response.content_part.added", { item_id, output_index, content_index: 0 });
      for (const delta of step.deltas) {
        emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      emit("response.output_text.done", { item_id, output_index, content_index: 0, text: step.deltas.join("") });
    }
    emit("response.output_item.done", { output_index, item: done });
  }
  emit("response.completed", { response: responseObject("completed", output, tokens) });
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join(""),
  };
}

const weather = functionCall("fc_1", "call_w1", "get_weather", '{"city":"Paris"}');
const time = functionCall("fc_2", "call_t2", "get_time", '{"zone":"Asia/Tōkyō"}');

const scenarios: Record<Scenario, { output: Item[]; steps: Step[]; usage: ReturnType<typeof usage> }> = {
  text: {
    output: [message("Hello, wörld 👋 — ünïcode")],
    steps: [{ kind: "text", index: 0, deltas: ["Hello, w", "örld 👋", " — ünïcode"] }],
    usage: usage(11, 7),
  },
  "tool-call": {
    output: [weather],
    steps: [{ kind: "call", index: 0, item: weather, deltas: ['{"ci', 'ty":"Pa', 'ris"}'] }],
    usage: usage(20, 9),
  },
  "parallel-tool-calls": {
    output: [weather, time],
    steps: [
      { kind: "call", index: 0, item: weather, deltas: ['{"city"', ':"Paris"}'] },
      { kind: "call", index: 1, item: time, deltas: ['{"zone":"Asia/T', 'ōkyō"}'] },
    ],
    usage: usage(30, 18),
  },
  reasoning: {
    output: [reasoning("Let me think step by step."), message("42")],
    steps: [
      { kind: "reasoning", index: 0, deltas: ["Let me think", " step by step."] },
      { kind: "text", index: 1, deltas: ["42"] },
    ],
    usage: usage(12, 40, 31),
  },
  "structured-output": {
    output: [message('{"answer":42,"unit":"µm"}')],
    steps: [{ kind: "text", index: 0, deltas: ['{"answer":', '42,"unit":"µ', 'm"}'] }],
    usage: usage(15, 8),
  },
};

/** The shared suite's fixture for the OpenAI Responses API. */
export const openAIResponsesFixture: DialectFixture = {
  name: "openai-responses",
  scenarios: ["text", "tool-call", "parallel-tool-calls", "reasoning", "structured-output"],
  createModel: ({ baseURL, apiKey, fetch }) =>
    createOpenAIResponsesModel("gpt-5-mini", { baseURL: `${baseURL}/v1`, apiKey, fetch, env: {} }),
  reply(scenario, stream) {
    const { output, steps, usage: tokens } = scenarios[scenario];
    if (stream) return streamOf(steps, output, tokens);
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(responseObject("completed", output, tokens)),
    };
  },
  errorReply: openAIErrorReply,
  checkRequest(scenario, request) {
    const body = request.body as Record<string, unknown>;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer sk-suite-key");
    expect(body).toMatchObject({ model: "gpt-5-mini", instructions: "You are the provider test suite.", store: false });
    expect(body.input).toEqual([{ role: "user", content: `Scenario: ${scenario}` }]);
    expect(body.tools).toMatchObject([
      { type: "function", name: "get_weather", parameters: { required: ["city"] } },
      { type: "function", name: "get_time" },
    ]);
    expect(body.max_output_tokens).toBe(1024);
    if (scenario === "structured-output") {
      expect(body.text).toMatchObject({ format: { type: "json_schema", name: "answer", strict: true } });
    } else {
      expect(body.text).toBeUndefined();
    }
  },
};
