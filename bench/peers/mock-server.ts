/**
 * A mock OpenAI-compatible Chat Completions server on 127.0.0.1.
 *
 * Scripted from the request alone (no per-connection or per-run state): the model name carries K
 * (`mock-k10` → 10 tool turns). While the request holds fewer than K tool results the answer is one
 * tool call `add({"a":1,"b":2})` with id `call_<turn>`; then the final text. `stream: true` gets
 * server-sent events in the chat.completion.chunk format, a usage chunk (empty choices) and
 * `data: [DONE]`; otherwise one JSON chat.completion.
 *
 * Pace: `mock-k10-p200` writes the SSE events about 200 ms apart (the first one about 200 ms after
 * the request), like a model emitting tokens; a JSON answer is delayed by the same total. Each gap is
 * drawn uniformly from 0.5–1.5× the pace, as real token timing varies, so concurrent streams do not
 * stay in lockstep. Without `-p` it answers at once.
 *
 * Every request is validated strictly (see `validate`); a bad one gets HTTP 400 with an
 * OpenAI-style error body, so a framework that sends the wrong history fails instead of being timed.
 * `GET …/stats` returns `{ requests, rejected }` counted since start, so a client can check it made
 * exactly the requests it should have.
 *
 * Run standalone: `tsx mock-server.ts [port]` (prints the base URL). bench.ts runs it as a child
 * process so the client process under measurement does no server work.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const FINAL_TEXT = "The sum is 3.";
const USAGE = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
const ARGUMENTS = '{"a":1,"b":2}';

export const stats = { requests: 0, rejected: 0 };

interface Script {
  k: number;
  paceMs: number;
}

function scriptOf(model: string): Script | undefined {
  const match = /-k(\d+)(?:-p(\d+))?$/.exec(model);
  return match ? { k: Number(match[1]), paceMs: Number(match[2] ?? 0) } : undefined;
}

function json(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

function reject(response: ServerResponse, message: string) {
  stats.rejected++;
  json(response, 400, { error: { message, type: "invalid_request_error", param: null, code: "bench_check_failed" } });
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

/**
 * Checks a request and returns how many tool turns it has completed, or a reason to reject it:
 * the `add` tool is declared with parameters a and b; the n-th assistant tool-call turn holds exactly
 * one call `add` with id `call_<n>` (as issued by this server) and arguments {a: 1, b: 2}; each is
 * followed by one tool message with that tool_call_id whose content holds "3"; nothing else answers
 * a tool call.
 */
export function validate(body: unknown): { model: string; script: Script; turns: number; stream: boolean } | string {
  if (!isObject(body)) return "the body is not a JSON object";
  const { model, messages, tools, stream } = body;
  if (typeof model !== "string") return "no model";
  const script = scriptOf(model);
  if (script === undefined) return `model ${model} does not name a script (mock-k<K>[-p<ms>])`;
  if (stream !== undefined && typeof stream !== "boolean") return "stream is not a boolean";
  const add = Array.isArray(tools)
    ? tools.find((entry) => isObject(entry) && isObject(entry.function) && entry.function.name === "add")
    : undefined;
  const parameters = isObject(add) && isObject(add.function) ? add.function.parameters : undefined;
  const properties = isObject(parameters) ? parameters.properties : undefined;
  if (!isObject(properties) || !isObject(properties.a) || !isObject(properties.b)) {
    return "the add tool with parameters a and b is not declared";
  }
  if (!Array.isArray(messages) || messages.length === 0) return "no messages";
  let turns = 0;
  let results = 0;
  let pending: string | undefined;
  for (const message of messages) {
    if (!isObject(message)) return "a message is not an object";
    const calls = message.tool_calls;
    if (message.role === "assistant" && Array.isArray(calls) && calls.length > 0) {
      if (pending !== undefined) return `tool call ${pending} has no tool message before the next assistant turn`;
      const call = calls[0];
      const id = `call_${turns}`;
      if (calls.length !== 1 || !isObject(call) || call.id !== id) {
        return `assistant tool-call turn ${turns} should hold exactly the call ${id}, got ${JSON.stringify(calls)}`;
      }
      const fn = call.function;
      if (!isObject(fn) || fn.name !== "add" || typeof fn.arguments !== "string") return `call ${id} is not add`;
      const args = JSON.parse(fn.arguments) as unknown;
      if (!isObject(args) || args.a !== 1 || args.b !== 2) return `call ${id} has arguments ${fn.arguments}`;
      pending = id;
      turns++;
    } else if (message.role === "tool") {
      if (message.tool_call_id !== pending)
        return `tool message for ${String(message.tool_call_id)}, expected ${pending ?? "none"}`;
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      if (!content.includes("3")) return `tool result for ${pending} is ${content}, expected 3`;
      pending = undefined;
      results++;
    }
  }
  if (pending !== undefined) return `tool call ${pending} has no tool message`;
  if (results !== turns) return `${results} tool messages for ${turns} tool-call turns`;
  return { model, script, turns, stream: stream === true };
}

/** One gap between paced events: uniform in 0.5–1.5× the pace. */
const gap = (paceMs: number) => paceMs * (0.5 + Math.random());

interface Answer {
  head: Record<string, string | number>;
  /** The whole body (instant), or its SSE events one by one (paced). */
  body: string;
  events: string[];
}

const cache = new Map<string, Answer>();

/** Checks a request body and renders its answer (cached), or the reason to reject it. */
function answerFor(raw: string): { answer: Answer; script: Script; stream: boolean } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return "the body is not JSON";
  }
  let checked: ReturnType<typeof validate>;
  try {
    checked = validate(parsed);
  } catch (error) {
    checked = `invalid request: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof checked === "string") return checked;
  const { model, script, turns, stream } = checked;
  const key = `${model}|${turns}|${stream}`;
  let answer = cache.get(key);
  if (answer === undefined) {
    answer = render(model, turns < script.k, turns, stream);
    cache.set(key, answer);
  }
  return { answer, script, stream };
}

/**
 * A `fetch` that answers a chat-completions request as this server does (checked the same way; a
 * bad one gets the same 400), in process and at once: no socket, no pacing. For measuring a
 * client's own work (`alloc-profile.ts`).
 */
export const cannedFetch = (async (_input: unknown, init?: { body?: unknown }) => {
  const found = answerFor(String(init?.body));
  if (typeof found === "string") {
    const error = { error: { message: found, type: "invalid_request_error", param: null, code: "bench_check_failed" } };
    return new Response(JSON.stringify(error), { status: 400, headers: { "content-type": "application/json" } });
  }
  const headers = Object.entries(found.answer.head).map(([name, value]): [string, string] => [name, String(value)]);
  return new Response(found.answer.body, { status: 200, headers });
}) as typeof fetch;

function handle(request: IncomingMessage, response: ServerResponse, raw: string) {
  if (request.method === "GET" && request.url?.endsWith("/stats")) return json(response, 200, stats);
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    return json(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: "not_found" } });
  }
  stats.requests++;
  const found = answerFor(raw);
  if (typeof found === "string") return reject(response, found);
  const { answer, script, stream } = found;
  if (script.paceMs === 0) {
    response.writeHead(200, answer.head);
    response.end(answer.body);
  } else if (!stream) {
    const { head, body } = answer;
    let total = 0;
    for (let index = 0; index < answer.events.length; index++) total += gap(script.paceMs);
    setTimeout(() => {
      response.writeHead(200, head);
      response.end(body);
    }, total);
  } else {
    // Headers at once, then one event per gap (chunked: no content-length).
    const { events } = answer;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let index = 0;
    const next = () => {
      if (response.destroyed) return;
      const event = events[index++]!;
      if (index === events.length) response.end(event);
      else {
        response.write(event);
        setTimeout(next, gap(script.paceMs));
      }
    };
    setTimeout(next, gap(script.paceMs));
  }
}

function render(model: string, callTool: boolean, turn: number, stream: boolean): Answer {
  const id = `chatcmpl-${turn}`;
  const created = 1_700_000_000;
  const callId = `call_${turn}`;
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: callTool ? null : "" }, finish_reason: null }]),
  ];
  if (callTool) {
    const start = { index: 0, id: callId, type: "function", function: { name: "add", arguments: "" } };
    events.push(chunk([{ index: 0, delta: { tool_calls: [start] }, finish_reason: null }]));
    events.push(
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":1,' } }] }, finish_reason: null },
      ]),
    );
    events.push(
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"b":2}' } }] }, finish_reason: null },
      ]),
    );
    events.push(chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]));
  } else {
    events.push(chunk([{ index: 0, delta: { content: "The sum " }, finish_reason: null }]));
    events.push(chunk([{ index: 0, delta: { content: "is 3." }, finish_reason: null }]));
    events.push(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
  }
  events.push(chunk([], { usage: USAGE }));
  events.push("data: [DONE]\n\n");
  if (stream) {
    const body = events.join("");
    return {
      head: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "content-length": Buffer.byteLength(body),
      },
      body,
      events,
    };
  }
  const message = callTool
    ? {
        role: "assistant",
        content: null,
        tool_calls: [{ id: callId, type: "function", function: { name: "add", arguments: ARGUMENTS } }],
      }
    : { role: "assistant", content: FINAL_TEXT };
  const body = JSON.stringify({
    id,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, message, finish_reason: callTool ? "tool_calls" : "stop", logprobs: null }],
    usage: USAGE,
  });
  // `events` of a JSON answer only sets how long a paced answer waits: as long as the stream would take.
  return { head: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, body, events };
}

export function startMockServer(port = 0): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handle(request, response, Buffer.concat(chunks).toString("utf8")));
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  server.maxHeadersCount = 0;
  return new Promise((resolvePromise) => {
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as AddressInfo;
      resolvePromise({
        baseURL: `http://127.0.0.1:${bound}/v1`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The server's counters, read over HTTP (by the measured process, outside any timed section). */
export async function readStats(baseURL: string): Promise<{ requests: number; rejected: number }> {
  const response = await fetch(`${baseURL}/stats`);
  return (await response.json()) as { requests: number; rejected: number };
}

if (process.argv[1]?.endsWith("mock-server.ts")) {
  const { baseURL } = await startMockServer(Number(process.argv[2] ?? 0));
  if (process.send) process.send({ baseURL });
  else console.log(baseURL);
}
