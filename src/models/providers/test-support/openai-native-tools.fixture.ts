import type { WireReply } from "./dialect-fixture.js";

/*
 * A Responses API answer in which the model searched the web, searched files, ran code, wrote a
 * cited answer and called a function tool, written from OpenAI's documented format: hosted tool
 * items (`web_search_call` with `action.sources` when included, `file_search_call` with `results`,
 * `code_interpreter_call` with `outputs`), an `output_text` with `url_citation` and
 * `file_citation` annotations, then a `function_call`. Streamed, each hosted item comes whole in
 * `response.output_item.done`, with progress events between; annotations come as
 * `response.output_text.annotation.added`.
 */

const webSearch = {
  type: "web_search_call",
  id: "ws_68e4a1",
  status: "completed",
  action: {
    type: "search",
    query: "weather Paris today",
    sources: [
      { type: "url", url: "https://weather.example/paris" },
      { type: "url", url: "https://news.example/paris-forecast" },
    ],
  },
};

const fileSearch = {
  type: "file_search_call",
  id: "fs_68e4a2",
  status: "completed",
  queries: ["umbrella policy"],
  results: [
    {
      file_id: "file-9Qx",
      filename: "travel-policy.pdf",
      score: 0.91,
      text: "Umbrellas are refunded.",
      attributes: {},
    },
  ],
};

const codeRun = {
  type: "code_interpreter_call",
  id: "ci_68e4a3",
  status: "completed",
  code: "print(21 * 2)",
  container_id: "cntr_68e4",
  outputs: [{ type: "logs", logs: "42\n" }],
};

const citations = [
  {
    type: "url_citation",
    start_index: 0,
    end_index: 19,
    url: "https://weather.example/paris",
    title: "Paris weather today",
  },
  { type: "file_citation", index: 36, file_id: "file-9Qx", filename: "travel-policy.pdf" },
];

const answerText = "It is sunny in Paris; umbrellas are refunded.";

const message = {
  type: "message",
  id: "msg_68e4a4",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: answerText, annotations: citations, logprobs: [] }],
};

const call = {
  type: "function_call",
  id: "fc_68e4a5",
  call_id: "call_Zt81",
  name: "get_time",
  arguments: '{"zone":"Europe/Paris"}',
  status: "completed",
};

const usage = {
  input_tokens: 1_420,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 96,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 1_516,
};

const response = (status: string, output: unknown[]) => ({
  id: "resp_68e4a0",
  object: "response",
  created_at: 1_759_741_200,
  status,
  model: "gpt-5-mini-2025-08-07",
  output,
  usage: status === "completed" ? usage : null,
});

export const nativeAnswerText = answerText;

/** The non-streaming answer. */
export function nativeToolsJson(): WireReply {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(response("completed", [webSearch, fileSearch, codeRun, message, call])),
  };
}

/** The streaming answer, event by event. */
export function nativeToolsSse(): WireReply {
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: response("in_progress", []) },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "web_search_call", id: webSearch.id, status: "in_progress" },
    },
    { type: "response.web_search_call.in_progress", output_index: 0, item_id: webSearch.id },
    { type: "response.web_search_call.searching", output_index: 0, item_id: webSearch.id },
    { type: "response.web_search_call.completed", output_index: 0, item_id: webSearch.id },
    { type: "response.output_item.done", output_index: 0, item: webSearch },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: { type: "file_search_call", id: fileSearch.id, status: "in_progress", queries: [], results: null },
    },
    { type: "response.file_search_call.in_progress", output_index: 1, item_id: fileSearch.id },
    { type: "response.file_search_call.searching", output_index: 1, item_id: fileSearch.id },
    { type: "response.file_search_call.completed", output_index: 1, item_id: fileSearch.id },
    { type: "response.output_item.done", output_index: 1, item: fileSearch },
    {
      type: "response.output_item.added",
      output_index: 2,
      item: { ...codeRun, status: "in_progress", code: "", outputs: null },
    },
    { type: "response.code_interpreter_call.in_progress", output_index: 2, item_id: codeRun.id },
    { type: "response.code_interpreter_call_code.delta", output_index: 2, item_id: codeRun.id, delta: "print(21" },
    { type: "response.code_interpreter_call_code.delta", output_index: 2, item_id: codeRun.id, delta: " * 2)" },
    { type: "response.code_interpreter_call_code.done", output_index: 2, item_id: codeRun.id, code: codeRun.code },
    { type: "response.code_interpreter_call.interpreting", output_index: 2, item_id: codeRun.id },
    { type: "response.code_interpreter_call.completed", output_index: 2, item_id: codeRun.id },
    { type: "response.output_item.done", output_index: 2, item: codeRun },
    {
      type: "response.output_item.added",
      output_index: 3,
      item: { type: "message", id: message.id, status: "in_progress", role: "assistant", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: message.id,
      output_index: 3,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: message.id,
      output_index: 3,
      content_index: 0,
      delta: "It is sunny in Paris;",
    },
    ...citations.map((annotation, index) => ({
      type: "response.output_text.annotation.added",
      item_id: message.id,
      output_index: 3,
      content_index: 0,
      annotation_index: index,
      annotation,
    })),
    {
      type: "response.output_text.delta",
      item_id: message.id,
      output_index: 3,
      content_index: 0,
      delta: " umbrellas are refunded.",
    },
    { type: "response.output_text.done", item_id: message.id, output_index: 3, content_index: 0, text: answerText },
    { type: "response.output_item.done", output_index: 3, item: message },
    { type: "response.output_item.added", output_index: 4, item: { ...call, arguments: "", status: "in_progress" } },
    { type: "response.function_call_arguments.delta", item_id: call.id, output_index: 4, delta: '{"zone":' },
    { type: "response.function_call_arguments.delta", item_id: call.id, output_index: 4, delta: '"Europe/Paris"}' },
    { type: "response.function_call_arguments.done", item_id: call.id, output_index: 4, arguments: call.arguments },
    { type: "response.output_item.done", output_index: 4, item: call },
    { type: "response.completed", response: response("completed", [webSearch, fileSearch, codeRun, message, call]) },
  ];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: events
      .map(
        (event, index) =>
          `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`,
      )
      .join(""),
  };
}

/** A plain final answer (JSON or streamed), for the request after the function tool ran. */
export function finalAnswer(streamed: boolean): WireReply {
  const done = {
    type: "message",
    id: "msg_2",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "14:00, sunny.", annotations: [] }],
  };
  const final = { ...response("completed", [done]), id: "resp_2" };
  if (!streamed) return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(final) };
  const events = [
    { type: "response.output_item.added", output_index: 0, item: { ...done, content: [] } },
    { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "14:00, sunny." },
    { type: "response.completed", response: final },
  ];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""),
  };
}
