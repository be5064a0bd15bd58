// Acceptance (issue 19, item 4, storage): an image in a user message is stored once by hash beside
// the log (SQLite file, PostgreSQL); the log holds a reference; the provider gets the data, also
// after a crash and in a fork; verify reports a deleted or tampered blob.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sessionsCommand } from "../cli/sessions-command.js";
import { BlobDamagedError } from "../errors/blob-damaged-error.js";
import { createOpenAIChatModel } from "../models/providers/openai-chat.js";
import { rebuildRequest } from "../models/providers/rebuild-request.js";
import type { RecordedRequest, WireReply } from "../models/providers/test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "../models/providers/test-support/fake-server.js";
import { bytesToBase64 } from "../platform/binary-bytes.js";
import type { UserContentPart } from "../session/messages.js";
import { deserializeLog } from "../session/serialization.js";
import { resolveBlobs } from "../store/blob-refs.js";
import { blobHash } from "../store/blob-store.js";
import { MemoryStore } from "../store/memory-store.js";
import { PostgresStore } from "../store/postgres-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { DATABASE_URL, postgresReachable } from "../store/test-support/postgres-server.js";
import { withRawSqlite } from "../store/test-support/sqlite-drivers.js";
import { tool } from "../tools/tool.js";
import { toolContent } from "../tools/tool-content.js";
import { Agent } from "./agent.js";

/** A 1×1 PNG (bytes 0…255 appended, so a secret-looking run of base64 is in there too). */
const BYTES = new Uint8Array([
  ...[137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0],
  ...Array.from({ length: 256 }, (_, index) => index),
]);
const DATA = bytesToBase64(BYTES);
const HASH = blobHash(BYTES);
const DATA_URL = `data:image/png;base64,${DATA}`;
const image: UserContentPart = { type: "image", data: DATA, mediaType: "image/png" };
const prompt = (text: string): UserContentPart[] => [{ type: "text", text }, image];

interface Backend {
  readonly name: string;
  open(): Promise<SessionStore>;
  /** Runs one statement on the backend's tables behind the store's back ($1, $2 … placeholders). */
  sql(statement: string, parameters?: unknown[]): Promise<number>;
}

const dir = mkdtempSync(join(tmpdir(), "nous-blobs-"));
const sqlitePath = join(dir, "sessions.db");
const schema = `nous_blobs_${process.pid}_${Date.now().toString(36)}`;
const backends: Backend[] = [
  {
    name: "SQLite file",
    open: async () => new SqliteStore({ path: sqlitePath }),
    sql: async (statement, parameters = []) =>
      withRawSqlite("better-sqlite3", sqlitePath, (db) => {
        const text = statement.replace(/\$\d+/g, "?").replaceAll('"S".', "");
        const values = parameters as (string | number | Uint8Array)[];
        if (/^\s*select/i.test(text)) return Number(db.prepare(text).get<{ n: number }>(...values)?.n);
        return db.prepare(text).run(...values).changes;
      }),
  },
];
if (await postgresReachable("blob storage (PostgreSQL)")) {
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  backends.push({
    name: "PostgreSQL",
    open: () => PostgresStore.connect(DATABASE_URL, { schema }),
    sql: async (statement, parameters = []) => {
      const result = await admin.query(statement.replaceAll('"S".', `"${schema}".`), parameters);
      return /^\s*select/i.test(statement) ? Number(result.rows[0]?.n) : (result.rowCount ?? 0);
    },
  });
}

let server: FakeServer;
const looked: string[] = [];
const look = tool({
  name: "look",
  description: "Look closer",
  input: z.object({}),
  idempotent: true,
  execute: () => {
    looked.push("look");
    return "a red pixel";
  },
});

/** The model: calls `look` when asked to ("use look") until it has a result, else answers. */
function reply(request: RecordedRequest): WireReply {
  const body = request.body as { messages: { role: string; content: unknown }[] };
  const last = body.messages.findLast((message) => message.role === "user");
  const wantsTool = JSON.stringify(last?.content).includes("use look");
  const sinceUser = body.messages.slice(body.messages.lastIndexOf(last as never));
  const message =
    wantsTool && !sinceUser.some((item) => item.role === "tool")
      ? { role: "assistant", content: null, tool_calls: [call] }
      : { role: "assistant", content: "a tiny image" };
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message, finish_reason: message.content === null ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    }),
  };
}
const call = { id: "call_1", type: "function", function: { name: "look", arguments: "{}" } };

const agent = () =>
  new Agent({
    model: createOpenAIChatModel("gpt-4o-mini", { baseURL: `${server.url}/v1`, apiKey: "k" }),
    tools: [look],
  });

/** How many times the last request's body carries the image's bytes. */
const imagesSent = (request: RecordedRequest | undefined) => JSON.stringify(request?.body).split(DATA_URL).length - 1;

beforeAll(async () => {
  server = await startFakeServer();
  server.setFallback(reply);
  return () => server.close();
});

describe.each(backends)("binary content on $name", (backend) => {
  let store: SessionStore;
  beforeAll(async () => {
    store = await backend.open();
    return () => store.close();
  });

  it("records the image by reference, sends its data, and stores it once for 3 messages", async () => {
    const first = await agent().run(prompt("what is this?"), { sessionId: "s1", store });
    expect(imagesSent(server.requests.at(-1))).toBe(1);
    const [stored] = (await store.read("s1")).filter((event) => event.type === "user_message");
    expect(stored?.data).toEqual({
      content: [
        { type: "text", text: "what is this?" },
        { type: "image", mediaType: "image/png", blob: HASH, size: BYTES.length },
      ],
    });
    expect(JSON.stringify(await store.read("s1"))).not.toContain(DATA.slice(0, 40));
    // What the run returns carries the data (the run's own log, as it was recorded).
    expect(first.messages.find((message) => message.role === "user")?.content).toEqual(prompt("what is this?"));

    await agent().run(prompt("and again?"), { sessionId: "s1", store });
    expect(imagesSent(server.requests.at(-1))).toBe(2); // the history's image, resolved, and the new one
    await agent().run(prompt("elsewhere"), { sessionId: "s2", store });
    expect(await backend.sql('SELECT count(*) AS n FROM "S".blobs')).toBe(1);
    expect(await backend.sql('SELECT size AS n FROM "S".blobs')).toBe(BYTES.length);

    // The exact body, rebuilt from the stored log once its references are resolved.
    const rawLog = await store.read("s1");
    const log = await resolveBlobs(store, rawLog);
    const requests = log.filter((event) => event.type === "model_request");
    expect(JSON.parse(JSON.stringify(rebuildRequest(log, requests.at(-1)?.seq ?? 0)))).toEqual(
      server.requests.at(-2)?.body,
    );
    expect(() => rebuildRequest(rawLog, requests.at(-1)?.seq ?? 0)).toThrow(
      expect.objectContaining({ code: "request_not_rebuildable", problem: "unresolved_blobs" }),
    );
  });

  it("writes every blob before the event that refers to it", async () => {
    const calls: string[] = [];
    const watched = new Proxy(store, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "putBlob") {
          return (blob: { hash: string }) => {
            calls.push(`put ${blob.hash}`);
            return value.call(target, blob);
          };
        }
        if (property === "append") {
          return (...args: Parameters<SessionStore["append"]>) => {
            if (JSON.stringify(args[1]).includes(HASH)) calls.push("append with ref");
            return target.append(...args);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await agent().run(prompt("order?"), { sessionId: "order", store: watched });
    expect(calls).toEqual([`put ${HASH}`, "append with ref"]);
  });

  it("still sends the image after a crash (resumed by a new process) and in a fork", async () => {
    await agent().run(prompt("use look"), { sessionId: "c1", store });
    const events = await store.read("c1");
    const intent = events.find((event) => event.type === "tool_call");
    // The crash: the log as it stood right after the tool's intent; then a new process opens the store.
    await store.fork("c1", { atSeq: intent?.seq ?? 0, newSessionId: "c1-crashed" });
    await store.close();
    store = await backend.open();
    looked.length = 0;
    const resumed = await agent().resume("c1-crashed", { store });
    expect(resumed.output).toBe("a tiny image");
    expect(looked).toEqual(["look"]); // idempotent: run again
    expect(imagesSent(server.requests.at(-1))).toBe(1);

    const fork = await store.fork("s1", { atSeq: await store.lastSeq("s1"), newSessionId: "s1-fork" });
    await agent().run("one more look", { sessionId: fork, store });
    expect(imagesSent(server.requests.at(-1))).toBe(2);
    expect(await backend.sql('SELECT count(*) AS n FROM "S".blobs')).toBe(1);
  });

  it("verify reports a tampered, then a deleted blob as damage; a run on it fails typed", async () => {
    expect(await store.verify?.()).toMatchObject({ ok: true });
    const tampered = new Uint8Array(BYTES);
    tampered[40] = 7;
    expect(await backend.sql('UPDATE "S".blobs SET bytes = $1 WHERE hash = $2', [tampered, HASH])).toBe(1);
    const report = await store.verify?.();
    expect(report?.ok).toBe(false);
    const damaged = report?.sessions.find((session) => session.sessionId === "s1");
    const seq = (await store.read("s1")).find((event) => event.type === "user_message")?.seq;
    expect(damaged).toMatchObject({ status: "damaged", seq, damage: "blob_mismatch" });
    expect(damaged?.status === "damaged" && damaged.detail).toContain(HASH);
    await expect(agent().run("still there?", { sessionId: "s1", store })).rejects.toBeInstanceOf(BlobDamagedError);

    expect(await backend.sql('DELETE FROM "S".blobs WHERE hash = $1', [HASH])).toBe(1);
    expect((await store.verify?.("s2"))?.sessions[0]).toMatchObject({ status: "damaged", damage: "blob_missing" });
    expect(await store.read("s2")).not.toHaveLength(0); // the events themselves verify without the blob
    await expect(agent().run("gone?", { sessionId: "s2", store })).rejects.toMatchObject({
      code: "blob_damaged",
      damage: "blob_missing",
      hash: HASH,
    });
  });
});

describe("nous sessions export", () => {
  it("carries the image's data, so the export stands alone", async () => {
    const path = join(dir, "export.db");
    const store = new SqliteStore({ path });
    await agent().run(prompt("export me"), { sessionId: "e1", store });
    await store.close();
    let output = "";
    const out = (text: string) => {
      output += text;
    };
    const io = { out, err: () => {}, color: false, interactive: false };
    expect(await sessionsCommand(io, ["export", "e1", "--store", path])).toBe(0);
    const exported = deserializeLog(output).events.find((event) => event.type === "user_message");
    expect(exported?.data).toEqual({ content: prompt("export me") });
  });
});

describe("a store without blob support", () => {
  it("keeps the image inline in its events, and a continued run still sends it", async () => {
    // A custom store written before blobs existed: no putBlob, no getBlob.
    const store: SessionStore = Object.assign(new MemoryStore(), { putBlob: undefined, getBlob: undefined });
    await agent().run(prompt("inline?"), { sessionId: "i1", store });
    const [stored] = (await store.read("i1")).filter((event) => event.type === "user_message");
    expect(stored?.data).toEqual({ content: prompt("inline?") });
    await agent().run("and now?", { sessionId: "i1", store });
    expect(imagesSent(server.requests.at(-1))).toBe(1);
  });
});

describe("an image a tool returns (toolContent)", () => {
  it("is stored by reference on tool_result, and a continued run from a new store instance sends its data", async () => {
    const path = join(dir, "tool-content.db");
    const snap = tool({
      name: "look",
      description: "Look closer",
      input: z.object({}),
      execute: () => toolContent([image], { result: "the screenshot" }),
    });
    const snapper = () =>
      new Agent({
        model: createOpenAIChatModel("gpt-4o-mini", { baseURL: `${server.url}/v1`, apiKey: "k" }),
        tools: [snap],
      });
    const first = new SqliteStore({ path });
    await snapper().run("use look", { sessionId: "t1", store: first });
    // The request after the tool call carried the image (Chat Completions: a user message after the tool message).
    expect(imagesSent(server.requests.at(-1))).toBe(1);
    const [stored] = (await first.read("t1")).filter((event) => event.type === "tool_result");
    expect(stored?.data).toMatchObject({
      result: "the screenshot",
      content: [{ type: "image", mediaType: "image/png", blob: HASH, size: BYTES.length }],
    });
    expect(JSON.stringify(await first.read("t1"))).not.toContain(DATA.slice(0, 40));
    await first.close();

    const second = new SqliteStore({ path });
    await snapper().run("thanks", { sessionId: "t1", store: second });
    expect(imagesSent(server.requests.at(-1))).toBe(1); // the history's image, resolved from the blob
    const log = await resolveBlobs(second, await second.read("t1"));
    const last = log.filter((event) => event.type === "model_request").at(-1)?.seq ?? 0;
    expect(JSON.parse(JSON.stringify(rebuildRequest(log, last)))).toEqual(server.requests.at(-1)?.body);
    await second.close();
  });
});
