/**
 * No request goes out before its record: a child process killed (SIGKILL) while its model request is
 * in flight, or while a retry is in flight, leaves a SQLite log whose `model_request` (and
 * `model_retry`) are committed, and from which `rebuildRequest` gives the body the server received.
 * A resume afterwards asks again, records the new request, and never runs a recorded call twice.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildRequest } from "../../src/models/providers/rebuild-request.js";
import { type FakeServer, startFakeServer } from "../../src/models/providers/test-support/fake-server.js";
import type { SessionEvent } from "../../src/session/events.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { repoRoot, startChild, tempDir, untilInterrupted } from "./harness.js";

const script = join(repoRoot, "test", "durability", "request-child.ts");

const completion = (message: Record<string, unknown>, finish: string) => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-crash",
    object: "chat.completion",
    created: 1_726_000_000,
    model: "gpt-4o-mini-2024-07-18",
    choices: [
      { index: 0, message: { role: "assistant", content: null, ...message }, logprobs: null, finish_reason: finish },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
  }),
});
const toolCall = completion(
  {
    tool_calls: [{ id: "call_add", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
  },
  "tool_calls",
);
/** The same tool call as Chat Completions streams it (SSE chunks, usage last). */
const streamedToolCall = (() => {
  const chunk = (delta: Record<string, unknown> | null, finish: string | null = null, usage: unknown = null) => ({
    id: "chatcmpl-crash",
    object: "chat.completion.chunk",
    created: 1_726_000_000,
    model: "gpt-4o-mini-2024-07-18",
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage,
  });
  const call = { index: 0, id: "call_add", type: "function", function: { name: "add", arguments: "" } };
  const payloads = [
    chunk({ role: "assistant", content: null, tool_calls: [call] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":2,' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"b":3}' } }] }),
    chunk({}, "tool_calls"),
    chunk(null, null, { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 }),
  ];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: `${payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join("")}data: [DONE]\n\n`,
  };
})();
const answer = completion({ content: "2 + 3 = 5" }, "stop");
const serverError = {
  status: 500,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    error: { message: "The server had an error", type: "server_error", param: null, code: null },
  }),
};
const hang = { reply: { status: 200, body: "" }, hangBeforeHeaders: true };

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

/** Starts the child and SIGKILLs it once the server has received `requests` requests. */
async function killAtRequest(path: string, how: "generate" | "stream", requests: number): Promise<string[]> {
  const child = startChild({ script, args: [path, "s", `${server.url}/v1`, "run", how] });
  const deadline = Date.now() + 30_000;
  while (server.requests.length < requests) {
    if (Date.now() > deadline)
      throw new Error(`the server got ${server.requests.length} requests: ${child.lines.join(" | ")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  child.kill();
  const outcome = await child.exit;
  expect(outcome.killed).toBe(true);
  return outcome.lines;
}

async function readLog(path: string): Promise<SessionEvent[]> {
  const store = new SqliteStore({ path });
  try {
    await untilInterrupted(store, "s");
    return await store.read("s");
  } finally {
    await store.close();
  }
}

const bodyAt = (log: readonly SessionEvent[], seq: number) => JSON.parse(JSON.stringify(rebuildRequest(log, seq)));

describe.each(["generate", "stream"] as const)("a crash while a model request is in flight (%s)", (how) => {
  it("leaves the request committed, rebuildable, and asked again on resume", async () => {
    server.reset();
    server.enqueue(how === "stream" ? streamedToolCall : toolCall, hang);
    const path = join(tempDir("nous-request-crash-"), "sessions.db");
    const lines = await killAtRequest(path, how, 2);
    expect(lines.filter((line) => line.startsWith("EFFECT"))).toEqual(["EFFECT add 2 3"]);

    const log = await readLog(path);
    const last = log.at(-1);
    expect(last?.type).toBe("model_request");
    expect(log.filter((event) => event.type === "model_request")).toHaveLength(2);
    expect(log.some((event) => event.type === "tool_result")).toBe(true);
    const sent = server.requests.map((request) => request.body);
    const requests = log.filter((event) => event.type === "model_request");
    expect(requests.map((event) => bodyAt(log, event.seq))).toEqual(sent);

    server.reset();
    server.enqueue(answer);
    const resumed = startChild({ script, args: [path, "s", `${server.url}/v1`, "resume", "generate"] });
    const outcome = await resumed.exit;
    expect(outcome.last).toBe('DONE "2 + 3 = 5"');
    expect(outcome.lines.some((line) => line.startsWith("EFFECT"))).toBe(false);
    const after = await new SqliteStore({ path }).read("s");
    const again = after.filter((event) => event.seq > log.length && event.type === "model_request");
    expect(again).toHaveLength(1);
    expect(bodyAt(after, again[0]?.seq ?? 0)).toEqual({ ...(server.requests[0]?.body as object) });
    expect(after.at(-1)?.type).toBe("run_completed");
  }, 60_000);
});

describe("a crash while a retry is in flight", () => {
  it("leaves the failed attempt committed as model_retry before the retry went out", async () => {
    server.reset();
    server.enqueue(serverError, hang);
    const path = join(tempDir("nous-retry-crash-"), "sessions.db");
    await killAtRequest(path, "generate", 2);
    const log = await readLog(path);
    expect(log.slice(-2).map((event) => event.type)).toEqual(["model_request", "model_retry"]);
    const retry = log.at(-1);
    expect(retry?.data).toMatchObject({ attempt: 1, delayMs: 100, error: { status: 500 } });
    const request = log.at(-2);
    // Both attempts sent the body the log rebuilds.
    expect(server.requests.map((each) => each.body)).toEqual([
      bodyAt(log, request?.seq ?? 0),
      bodyAt(log, request?.seq ?? 0),
    ]);
  }, 60_000);
});
