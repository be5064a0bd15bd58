// Acceptance (issue 15, item 5): 20 planted secret values never reach the log, the SQLite file,
// the CLI's output, errors, the stream or the inspector; the wire and the tools still get them.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sessionsCommand } from "../cli/sessions-command.js";
import { ContextUpdate } from "../context/context-update.js";
import { NousError } from "../errors/nous-error.js";
import { startInspector } from "../inspector/server.js";
import { getLogger } from "../logging/logger.js";
import { createOpenAIChatModel } from "../models/providers/openai-chat.js";
import type { RecordedRequest, WireReply } from "../models/providers/test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "../models/providers/test-support/fake-server.js";
import { secretPlaceholder } from "../redaction/placeholder.js";
import { secret } from "../redaction/secret.js";
import { registerSecret } from "../redaction/secret-registry.js";
import type { AgentStreamEvent } from "../runner/agent-stream-event.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { captureLogger } from "../test-support/capture-logger.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

const S = {
  apiKey: "sk-accept-apikey-0001",
  header1: "hdr-org-secret-0002",
  header2: "hdr-proxy-secret-0003",
  depsKey: "deps-apikey-secret-0004",
  depsPassword: "deps-db-password-0005",
  rotated: "rotated-apikey-0006",
  markedText: "tool-marked-text-0007",
  markedObject: "tool-marked-object-0008",
  registeredResult: "registered-result-0009",
  depsEcho: "merged-db-password-0010",
  logMarked: "logevent-marked-0011",
  logRegistered: "logevent-registered-0012",
  toolError: "tool-error-secret-0013",
  echoedKey: "sk-echoed-in-error-0014",
  instructions: "instructions-secret-0015",
  prompt: "prompt-secret-0016",
  modelEcho: "model-echo-secret-0017",
  toolArgs: "tool-args-secret-0018",
  reasoning: "reasoning-secret-0019",
  escaped: 'quote"and\\back-0020',
} as const;
const secrets = Object.values(S);

type Deps = { apiKey: string; db: { host: string; password: string }; seen: string[] };

const dir = mkdtempSync(join(tmpdir(), "nous-secrets-"));
const dbPath = join(dir, "sessions.db");
let server: FakeServer;
let store: SqliteStore;
const streamed: AgentStreamEvent[] = [];
const logs: string[] = [];
const errors: unknown[] = [];
const seenByTools: { apiKey: string; password: string }[] = [];
let logged: ReturnType<typeof captureLogger>;

// The model's answers, by turn: first two tool calls (arguments carry a secret), then a final text
// that echoes what the model "received" (key, headers), split mid-secret across stream deltas.
function reply(request: RecordedRequest): WireReply {
  const body = request.body as { stream?: boolean; messages: unknown[] };
  const roles = body.messages.map((message) => (message as { role: string }).role);
  const turn = roles.slice(roles.lastIndexOf("user")).filter((role) => role === "assistant").length;
  const args = JSON.stringify({ note: S.toolArgs });
  const text = `Done. key=${request.headers.authorization} org=${request.headers["x-org"]} proxy=${request.headers["x-proxy"]} ${S.modelEcho} ${S.escaped}`;
  if (turn === 0) {
    return body.stream
      ? sse([
          delta({ role: "assistant", content: null, reasoning_content: S.reasoning.slice(0, 7) }),
          delta({ reasoning_content: S.reasoning.slice(7) }),
          delta({
            tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "reveal", arguments: "" } }],
          }),
          ...halves(args).map((part) => delta({ tool_calls: [{ index: 0, function: { arguments: part } }] })),
          delta({
            tool_calls: [{ index: 1, id: "call_2", type: "function", function: { name: "fail", arguments: "{}" } }],
          }),
          delta({}, "tool_calls"),
        ])
      : json(
          {
            role: "assistant",
            content: null,
            reasoning_content: S.reasoning,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "reveal", arguments: args } },
              { id: "call_2", type: "function", function: { name: "fail", arguments: "{}" } },
            ],
          },
          "tool_calls",
        );
  }
  return body.stream
    ? sse([
        delta({ role: "assistant", content: "" }),
        ...splitEverySecret(text).map((part) => delta({ content: part })),
        delta({}, "stop"),
      ])
    : json({ role: "assistant", content: text }, "stop");
}

const delta = (value: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, delta: value, finish_reason: finish }],
});
const sse = (chunks: unknown[]): WireReply => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: `${[
    ...chunks,
    { ...delta({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } },
  ]
    .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
    .join("")}data: [DONE]\n\n`,
});
const json = (message: Record<string, unknown>, finish: string): WireReply => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
  }),
});
const halves = (text: string) => [text.slice(0, Math.floor(text.length / 2)), text.slice(Math.floor(text.length / 2))];
/** Cuts the text in the middle of every secret it holds. */
function splitEverySecret(text: string): string[] {
  const cuts = new Set<number>();
  for (const value of secrets) {
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1))
      cuts.add(at + Math.floor(value.length / 2));
  }
  const parts: string[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    parts.push(text.slice(from, cut));
    from = cut;
  }
  parts.push(text.slice(from));
  return parts;
}

const reveal = tool<z.ZodObject<{ note: z.ZodString }>, unknown, Deps>({
  name: "reveal",
  description: "Returns secrets in every shape a tool might",
  input: z.object({ note: z.string() }),
  execute: (_args, context) => {
    const deps = context.deps;
    seenByTools.push({ apiKey: deps.apiKey, password: deps.db.password });
    return {
      result: {
        marked: secret(S.markedText),
        object: secret({ token: S.markedObject }),
        registered: S.registeredResult,
        escaped: S.escaped,
        quoted: `the password is ${deps.db.password}`,
      },
      update: ContextUpdate.new<Deps>()
        .set("apiKey", S.rotated)
        .merge("db", { password: S.depsEcho })
        .append("seen", "ok")
        .logEvent("audit", { marked: secret(S.logMarked), plain: `saw ${S.logRegistered}` }),
    };
  },
});

const fail = tool<z.ZodObject<Record<string, never>>, never, Deps>({
  name: "fail",
  description: "Fails with a secret in its message",
  input: z.object({}),
  execute: () => {
    throw new Error(`could not connect with ${S.toolError}`);
  },
});

function agentFor(apiKey: string, baseURL: string) {
  return new Agent<Deps>({
    model: createOpenAIChatModel("gpt-4o-mini", {
      baseURL,
      apiKey,
      headers: { "x-org": S.header1, "x-proxy": S.header2 },
      env: {},
    }),
    retry: false,
    instructions: `Be brief. Internal token: ${S.instructions}`,
    tools: [reveal, fail],
    secret: ["apiKey", "db.password"],
  });
}

const deps = (): Deps => ({ apiKey: S.depsKey, db: { host: "db.local", password: S.depsPassword }, seen: [] });

beforeAll(async () => {
  logged = captureLogger();
  // Secrets the application knows about: registered once, redacted wherever they turn up.
  for (const value of [
    S.registeredResult,
    S.logRegistered,
    S.toolError,
    S.instructions,
    S.prompt,
    S.modelEcho,
    S.toolArgs,
    S.reasoning,
    S.escaped,
    S.echoedKey,
  ]) {
    registerSecret(value);
  }
  server = await startFakeServer();
  server.setFallback(reply);
  store = new SqliteStore({ path: dbPath });
  const agent = agentFor(S.apiKey, `${server.url}/v1`);

  const result = await agent.run(`Hello, my code is ${S.prompt}`, { deps: deps(), store, sessionId: "plain" });
  logs.push(JSON.stringify(result.log));
  for await (const event of agent.stream(`Hello, my code is ${S.prompt}`, {
    deps: deps(),
    store,
    sessionId: "streamed",
  })) {
    streamed.push(event);
  }
  // The session continues: secret deps come from the caller again, not from the log's placeholders.
  const continued = await agent.run("again", { deps: deps(), store, sessionId: "plain" });
  logs.push(JSON.stringify(continued.log));

  // A provider error body that echoes the key it was given.
  const failing = await startFakeServer();
  failing.setFallback({
    status: 401,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      error: { message: `Incorrect API key provided: ${S.echoedKey}`, type: "invalid_request_error" },
    }),
  });
  try {
    await agentFor(S.echoedKey, `${failing.url}/v1`).run("hi", { deps: deps(), store, sessionId: "failed" });
  } catch (error) {
    errors.push(error);
  } finally {
    await failing.close();
  }
  getLogger().warn(`a warning quoting ${S.apiKey}`, { header: S.header1 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
});

/** Each secret's occurrences in `text`, as UTF-8 and JSON-escaped. */
function leaks(text: string): string[] {
  return secrets.filter((value) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)));
}
function leaksInBytes(bytes: Buffer): string[] {
  return secrets.filter(
    (value) =>
      bytes.includes(Buffer.from(value, "utf8")) ||
      bytes.includes(Buffer.from(JSON.stringify(value).slice(1, -1), "utf8")),
  );
}

describe("20 planted secrets", () => {
  it("are 20 distinct values", () => {
    expect(new Set(secrets).size).toBe(20);
  });

  it("reached the wire and the tools as real values", () => {
    const first = server.requests[0] as RecordedRequest;
    expect(first.headers.authorization).toBe(`Bearer ${S.apiKey}`);
    expect(first.headers["x-org"]).toBe(S.header1);
    expect(first.headers["x-proxy"]).toBe(S.header2);
    expect(JSON.stringify(first.body)).toContain(S.instructions); // the model got the real instructions
    expect(seenByTools).toEqual([
      { apiKey: S.depsKey, password: S.depsPassword },
      { apiKey: S.depsKey, password: S.depsPassword },
      { apiKey: S.depsKey, password: S.depsPassword }, // the continued session: from the caller's deps
    ]);
  });

  it("are not in any result.log, and the log holds placeholders", () => {
    for (const log of logs) {
      expect(leaks(log)).toEqual([]);
      expect(log).toContain(secretPlaceholder(S.markedText));
      expect(log).toContain(secretPlaceholder(S.rotated));
      expect(log).toContain(secretPlaceholder(S.depsEcho));
      expect(log).toContain(secretPlaceholder(S.toolError));
    }
    expect(logs[0]).toContain(secretPlaceholder(S.depsKey)); // the new session's initial deps
  });

  it("reach the model as placeholders too (the log and what the model saw agree)", () => {
    const second = JSON.stringify(server.requests[1]?.body);
    expect(second).toContain(secretPlaceholder(S.markedText));
    expect(second).not.toContain(S.registeredResult);
  });

  it("are not in any stream event, deltas split mid-secret included", () => {
    expect(streamed.some((event) => event.type === "text-delta")).toBe(true);
    for (const event of streamed) expect(leaks(JSON.stringify(event)), event.type).toEqual([]);
    const text = streamed
      .flatMap((event) => (event.kind === "delta" && event.type === "text-delta" ? [event.text] : []))
      .join("");
    expect(text).toContain(secretPlaceholder(S.modelEcho));
    expect(text).toContain(`key=Bearer ${secretPlaceholder(S.apiKey)}`);
    const reasoning = streamed
      .flatMap((event) => (event.kind === "delta" && event.type === "reasoning-delta" ? [event.text] : []))
      .join("");
    expect(reasoning).toBe(secretPlaceholder(S.reasoning));
  });

  it("are not in the thrown error's message, stack or JSON, nor in the log it carries", () => {
    expect(errors).toHaveLength(1);
    const error = errors[0] as NousError;
    expect(NousError.isInstance(error)).toBe(true);
    expect(error.message).toContain(secretPlaceholder(S.echoedKey));
    for (const text of [error.message, String(error.stack), JSON.stringify(error), JSON.stringify(error.log)]) {
      expect(leaks(text)).toEqual([]);
    }
  });

  it("are not in the logger's output", () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(leaks(JSON.stringify(logged))).toEqual([]);
  });

  it("are not in the SQLite file or its WAL", () => {
    for (const path of [dbPath, `${dbPath}-wal`]) {
      if (!existsSync(path)) continue;
      expect(leaksInBytes(readFileSync(path)), path).toEqual([]);
    }
    expect(
      readFileSync(dbPath).length + (existsSync(`${dbPath}-wal`) ? readFileSync(`${dbPath}-wal`).length : 0),
    ).toBeGreaterThan(0);
  });

  it("are not in the CLI's sessions list, show and export output", async () => {
    let output = "";
    const io = {
      out: (text: string) => {
        output += text;
      },
      err: (text: string) => {
        output += text;
      },
      color: false,
      interactive: false,
    };
    for (const id of ["plain", "streamed", "failed"]) {
      expect(await sessionsCommand(io, ["show", id, "--store", dbPath])).toBe(0);
      expect(await sessionsCommand(io, ["show", id, "--json", "--store", dbPath])).toBe(0);
      expect(await sessionsCommand(io, ["export", id, "--store", dbPath])).toBe(0);
    }
    expect(await sessionsCommand(io, ["list", "--json", "--store", dbPath])).toBe(0);
    expect(output).toContain(secretPlaceholder(S.markedText));
    expect(leaks(output)).toEqual([]);
  });

  it("are not in any inspector API response", async () => {
    const inspector = await startInspector({ store, port: 0, token: false });
    try {
      const base = inspector.url.replace(/\/$/, "");
      const bodies: string[] = [await (await fetch(`${base}/api/sessions`)).text()];
      for (const id of ["plain", "streamed", "failed"]) {
        const { events } = (await (await fetch(`${base}/api/sessions/${id}/events`)).json()) as {
          events: { seq: number }[];
        };
        expect(events.length).toBeGreaterThan(0);
        const states = events.map((event) => `/state?seq=${event.seq}`);
        for (const path of ["", "/events", "/requests", "/usage", ...states]) {
          const response = await fetch(`${base}/api/sessions/${id}${path}`);
          expect(response.status, `${id}${path}`).toBe(200);
          bodies.push(await response.text());
        }
        bodies.push(await firstEvents(`${base}/api/sessions/${id}/stream?after=0`));
      }
      const all = bodies.join("\n");
      expect(all).toContain(secretPlaceholder(S.depsEcho));
      expect(leaks(all)).toEqual([]);
    } finally {
      await inspector.close();
    }
  });
});

/** The live stream's bytes up to its first batch of events. */
async function firstEvents(url: string): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("event: events")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  // Until the end of that event's data.
  while (!/event: events[\s\S]*\n\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return text;
}
