import type { WireReply } from "./dialect-fixture.js";

/*
 * A Messages API answer in which Claude used the web search server tool, then called a client tool,
 * written from Anthropic's documented format: a `server_tool_use` block (id `srvtoolu_…`, its input
 * streamed as `input_json_delta`), a `web_search_tool_result` block (the whole result in
 * `content_block_start`, no deltas; each result with an encrypted_content to send back), a text
 * block with `web_search_result_location` citations (streamed as `citations_delta`), then an
 * ordinary `tool_use`. `usage.server_tool_use` counts the searches.
 */

const MODEL = "claude-sonnet-4-5-20250929";
const SEARCH_ID = "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE";

const searchResult = {
  type: "web_search_tool_result",
  tool_use_id: SEARCH_ID,
  content: [
    {
      type: "web_search_result",
      url: "https://weather.example/paris",
      title: "Paris weather today",
      encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2Y",
      page_age: "October 6, 2025",
    },
    {
      type: "web_search_result",
      url: "https://news.example/paris-forecast",
      title: "Forecast: a sunny week in Paris",
      encrypted_content: "Eo8BCioIAhgBIiQyYjY0ZjNmMS1kNzJjLTRlMWEtYjc5Ni1mZjc0NTJmNmFiN2M",
      page_age: null,
    },
  ],
};

const citation = {
  type: "web_search_result_location",
  url: "https://weather.example/paris",
  title: "Paris weather today",
  encrypted_index: "Eo8BCioIAhgBIiQyYjY0ZjNmMS1kNzJjLTRlMWEtYjc5Ni1mZjc0NTJmNmFiN2M=",
  cited_text: "Sunny, 21 °C, light wind from the west.",
};

/** What the answer must normalize to: the two text blocks, the client tool call only. */
export const serverToolsExpected = {
  text: "I'll look up the weather in Paris.It is sunny and 21 °C in Paris.",
  toolCalls: [{ toolName: "get_time", args: { zone: "Europe/Paris" } }],
  finishReason: "tool-calls",
} as const;

const usage = {
  input_tokens: 2_179,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 187,
  server_tool_use: { web_search_requests: 1 },
};

/** The non-streaming answer. */
export function serverToolsJson(): WireReply {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "msg_01NbMyxV2Tja9RzUpv9cNcCu",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [
        { type: "text", text: "I'll look up the weather in Paris." },
        { type: "server_tool_use", id: SEARCH_ID, name: "web_search", input: { query: "weather Paris today" } },
        searchResult,
        { type: "text", text: "It is sunny and 21 °C in Paris.", citations: [citation] },
        { type: "tool_use", id: "toolu_01Pa4mQbC7WsGMmjKkn5yqFh", name: "get_time", input: { zone: "Europe/Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage,
    }),
  };
}

type Event = readonly [name: string, data: Record<string, unknown>];
const block = (index: number, content_block: Record<string, unknown>): Event => [
  "content_block_start",
  { type: "content_block_start", index, content_block },
];
const delta = (index: number, value: Record<string, unknown>): Event => [
  "content_block_delta",
  { type: "content_block_delta", index, delta: value },
];
const stop = (index: number): Event => ["content_block_stop", { type: "content_block_stop", index }];

/** The streaming answer, event by event as the Messages API frames it. */
export function serverToolsSse(): WireReply {
  const events: Event[] = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_01NbMyxV2Tja9RzUpv9cNcCu",
          type: "message",
          role: "assistant",
          model: MODEL,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 3, server_tool_use: { web_search_requests: 0 } },
        },
      },
    ],
    block(0, { type: "text", text: "" }),
    delta(0, { type: "text_delta", text: "I'll look up " }),
    delta(0, { type: "text_delta", text: "the weather in Paris." }),
    stop(0),
    block(1, { type: "server_tool_use", id: SEARCH_ID, name: "web_search", input: {} }),
    delta(1, { type: "input_json_delta", partial_json: "" }),
    delta(1, { type: "input_json_delta", partial_json: '{"query": "weat' }),
    delta(1, { type: "input_json_delta", partial_json: 'her Paris today"}' }),
    stop(1),
    block(2, searchResult),
    stop(2),
    block(3, { type: "text", text: "", citations: [] }),
    delta(3, { type: "citations_delta", citation }),
    delta(3, { type: "text_delta", text: "It is sunny and 21 °C " }),
    ["ping", { type: "ping" }],
    delta(3, { type: "text_delta", text: "in Paris." }),
    stop(3),
    block(4, { type: "tool_use", id: "toolu_01Pa4mQbC7WsGMmjKkn5yqFh", name: "get_time", input: {} }),
    delta(4, { type: "input_json_delta", partial_json: '{"zone": ' }),
    delta(4, { type: "input_json_delta", partial_json: '"Europe/Paris"}' }),
    stop(4),
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: usage.output_tokens, server_tool_use: usage.server_tool_use },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(""),
  };
}
