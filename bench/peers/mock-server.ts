/**
 * A mock OpenAI-compatible Chat Completions server on 127.0.0.1 that answers instantly.
 *
 * Scripted from the request alone (no per-connection or per-run state): the model name carries K
 * (`mock-k10` → 10 tool turns). While the request holds fewer than K `role: "tool"` messages the
 * answer is one tool call `add({"a":1,"b":2})`; then a final text answer. `stream: true` gets
 * server-sent events in the chat.completion.chunk format, a usage chunk (empty choices) and
 * `data: [DONE]`; otherwise one JSON chat.completion.
 *
 * Run standalone: `tsx mock-server.ts [port]` (prints the base URL). Used by bench.ts as a child
 * process so the client process under measurement does no server work.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const FINAL_TEXT = "The sum is 3.";
const USAGE = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };

function kOf(model: unknown): number {
  const match = typeof model === "string" ? /-k(\d+)$/.exec(model) : null;
  return match ? Number(match[1]) : 10;
}

function json(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

const cache = new Map<string, { head: Record<string, string | number>; body: string }>();

function handle(request: IncomingMessage, response: ServerResponse, raw: string) {
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    return json(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: "not_found" } });
  }
  // Scripted from the request alone. Counting `"role":"tool"` in the raw body is equivalent to
  // parsing it (every client here serializes with JSON.stringify) and keeps the server cheap, so
  // it is not the bottleneck of the throughput runs; answers are cached per (model, turn, stream).
  const model = /"model":\s*"([^"]*)"/.exec(raw)?.[1];
  if (model === undefined) return json(response, 400, { error: { message: "no model", type: "invalid_request_error" } });
  const done = raw.match(/"role":\s*"tool"/g)?.length ?? 0;
  const stream = /"stream":\s*true/.test(raw);
  const key = `${model}|${done}|${stream}`;
  let answer = cache.get(key);
  if (answer === undefined) {
    answer = render(model, done, stream);
    cache.set(key, answer);
  }
  response.writeHead(200, answer.head);
  response.end(answer.body);
}

function render(model: string, done: number, stream: boolean): { head: Record<string, string | number>; body: string } {
  const body = { stream };
  const callTool = done < kOf(model);
  const id = `chatcmpl-${done}`;
  const created = 1_700_000_000;
  const callId = `call_${done}`;
  if (!body.stream) {
    const message = callTool
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: callId, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
        }
      : { role: "assistant", content: FINAL_TEXT };
    const text = JSON.stringify({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: callTool ? "tool_calls" : "stop", logprobs: null }],
      usage: USAGE,
    });
    return { head: { "content-type": "application/json", "content-length": Buffer.byteLength(text) }, body: text };
  }
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  let out = chunk([{ index: 0, delta: { role: "assistant", content: callTool ? null : "" }, finish_reason: null }]);
  if (callTool) {
    out += chunk([
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: callId, type: "function", function: { name: "add", arguments: "" } }] },
        finish_reason: null,
      },
    ]);
    out += chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":1,' } }] }, finish_reason: null }]);
    out += chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"b":2}' } }] }, finish_reason: null }]);
    out += chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]);
  } else {
    out += chunk([{ index: 0, delta: { content: "The sum " }, finish_reason: null }]);
    out += chunk([{ index: 0, delta: { content: "is 3." }, finish_reason: null }]);
    out += chunk([{ index: 0, delta: {}, finish_reason: "stop" }]);
  }
  out += chunk([], { usage: USAGE });
  out += "data: [DONE]\n\n";
  return {
    head: { "content-type": "text/event-stream", "cache-control": "no-cache", "content-length": Buffer.byteLength(out) },
    body: out,
  };
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

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("mock-server.ts")) {
  const { baseURL } = await startMockServer(Number(process.argv[2] ?? 0));
  if (process.send) process.send({ baseURL });
  else console.log(baseURL);
}
