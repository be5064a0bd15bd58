/**
 * The inspector's API without a browser: the token rule, sessions and filters, state at a seq and
 * the deps diff, requests and cost, live events over SSE, approvals that resume the run, and forks.
 */
import { request } from "node:http";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DefinitionError, MemoryStore, projectMessages, type SessionEvent, type SessionStore } from "../index.js";
import { diffDeps, stateAt } from "./analysis.js";
import { isLoopback, resolveToken } from "./auth.js";
import { startInspector } from "./server.js";
import { recordSessions, resumeShop, shopAgent } from "./test-support/sessions.js";

/** A raw HTTP request (so the Host header can be set), resolving to status, headers and body. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(url, { method: options.method ?? "GET", headers: options.headers }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      });
      req.on("error", reject);
      req.end(options.body);
    },
  );
}

type SessionRow = {
  sessionId: string;
  eventCount: number;
  totals: { usage: Record<string, number>; cost?: number };
  pendingApprovals: unknown[];
};

const store = new MemoryStore();
/** The store as the inspector sees it, counting reads (to see a live stream stop polling). */
let reads = 0;
const counted = new Proxy(store, {
  get(target, key) {
    const value = Reflect.get(target, key);
    if (typeof value !== "function") return value;
    return (...args: unknown[]) => {
      if (key === "read") reads += 1;
      return value.apply(target, args);
    };
  },
}) as SessionStore;
let events: SessionEvent[] = [];
const resumed: string[] = [];
let inspector: Awaited<ReturnType<typeof startInspector>>;
let base = "";

beforeAll(async () => {
  const shop = await recordSessions(store);
  events = await store.read("shop");
  inspector = await startInspector({
    store: counted,
    port: 0,
    token: false,
    agent: shopAgent(),
    resume: async (sessionId) => {
      resumed.push(sessionId);
      await resumeShop(shop, store, sessionId);
    },
  });
  base = inspector.url.replace(/\/$/, "");
});
afterAll(async () => {
  await inspector?.close();
  await store.close();
});

const seqOf = (predicate: (event: SessionEvent) => boolean) => events.find(predicate)?.seq ?? -1;

const S3CRET = "s3cret-s3cret-s3cret-s3cret-s3cret";

describe("the token rule", () => {
  it("a token is required on every bind by default (generated, printed in the URL); no token only on loopback", async () => {
    expect(inspector.token).toBeUndefined(); // this suite's server opted out with token: false, on loopback
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const long = "a-token-of-exactly-32-characters";
    for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3", "::ffff:127.0.0.1"]) {
      expect(isLoopback(host)).toBe(true);
      expect(resolveToken(host, undefined)).toMatch(/^[\w-]{32}$/);
      expect(resolveToken(host, false)).toBeUndefined();
    }
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "example.com"]) {
      expect(isLoopback(host)).toBe(false);
      expect(resolveToken(host, undefined)).toMatch(/^[\w-]{32}$/);
      expect(() => resolveToken(host, false)).toThrow(DefinitionError);
    }
    expect(resolveToken("0.0.0.0", long)).toBe(long);
    const byDefault = await startInspector({ store, port: 0 });
    try {
      expect(byDefault.token).toMatch(/^[\w-]{32}$/);
      expect(byDefault.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/\\?token=${byDefault.token}$`));
      const root = byDefault.url.replace(/\?.*$/, "").replace(/\/$/, "");
      expect((await raw(`${root}/api/sessions`)).status).toBe(401);
    } finally {
      await byDefault.close();
    }
  });

  it("given tokens shorter than 32 characters are refused", async () => {
    const long = "a-token-of-exactly-32-characters";
    expect(resolveToken("127.0.0.1", long)).toBe(long);
    for (const short of ["", "a", long.slice(1)]) {
      expect(() => resolveToken("127.0.0.1", short)).toThrow(/at least 32 characters \(got \d+\)/);
      expect(() => resolveToken("0.0.0.0", short)).toThrow(DefinitionError);
    }
    await expect(startInspector({ store, port: 0, token: "a" })).rejects.toThrow(DefinitionError);
  });

  it("checks a token on every API request and the page: query (then cookie), header, bearer", async () => {
    const guarded = await startInspector({ store, port: 0, token: S3CRET });
    try {
      expect(guarded.token).toBe(S3CRET);
      const root = guarded.url.replace(/\?.*$/, "").replace(/\/$/, "");
      expect(guarded.url).toBe(`${root}/?token=${S3CRET}`);
      expect((await raw(`${root}/api/sessions`)).status).toBe(401);
      expect((await raw(`${root}/`)).status).toBe(401);
      expect((await raw(`${root}/api/sessions?token=wrong`)).status).toBe(401);
      expect((await raw(`${root}/api/sessions`, { headers: { "x-nous-token": S3CRET } })).status).toBe(200);
      expect((await raw(`${root}/api/sessions`, { headers: { authorization: `Bearer ${S3CRET}` } })).status).toBe(200);
      const page = await raw(guarded.url);
      expect(page.status).toBe(302);
      expect(page.headers.location).toBe("/");
      const cookie = String(page.headers["set-cookie"]).split(";")[0] ?? "";
      expect(cookie).toMatch(new RegExp(`^nous_inspector_\\d+=${S3CRET}$`));
      expect(String(page.headers["set-cookie"])).toMatch(/HttpOnly/i);
      const withCookie = await raw(`${root}/`, { headers: { cookie } });
      expect(withCookie.status).toBe(200);
      expect(withCookie.body).toContain("Nous inspector");
      expect(
        (await raw(`${root}/api/sessions/shop/stream`, { headers: { cookie: "nous_inspector_1=nope" } })).status,
      ).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it("a write's Origin must be the inspector's own: scheme, host and port compared, not the hostname only", async () => {
    const fork = `${base}/api/sessions/shop/fork`;
    const body = JSON.stringify({ atSeq: 1 });
    const { hostname, port } = new URL(base);
    const post = (origin: string) =>
      raw(fork, { method: "POST", body, headers: { "content-type": "application/json", origin } });
    for (const origin of [
      `http://${hostname}:8099`,
      `https://${hostname}:${port}`,
      `http://${hostname}`,
      `http://localhost:${port}`,
      "null",
    ]) {
      expect((await post(origin)).status, origin).toBe(403);
    }
    expect((await post(`http://${hostname}:${port}`)).status).toBe(200);
  });

  it("refuses a foreign Host header without a token, and cross-origin or non-JSON writes", async () => {
    expect((await raw(`${base}/api/sessions`, { headers: { host: "evil.example:80" } })).status).toBe(403);
    expect((await raw(`${base}/api/sessions`, { headers: { host: "localhost" } })).status).toBe(200);
    const fork = `${base}/api/sessions/shop/fork`;
    const body = JSON.stringify({ atSeq: 1 });
    const json = { "content-type": "application/json" };
    expect((await raw(fork, { method: "POST", body, headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect(
      (await raw(fork, { method: "POST", body, headers: { ...json, origin: "http://evil.example" } })).status,
    ).toBe(403);
  });
});

describe("bounded session ids", () => {
  it("refuses a session id over 256 characters or with control characters (400) and never echoes unbounded input", async () => {
    const long = "x".repeat(5000);
    for (const path of [`/api/sessions/${long}`, `/api/sessions/${long}/events`, "/api/sessions/a%1B%5B2Jb/totals"]) {
      const response = await raw(`${base}${path}`);
      expect(response.status, path.slice(0, 30)).toBe(400);
      const { error } = JSON.parse(response.body);
      expect(error).toMatch(/^Invalid session id: it /);
      expect(error.length).toBeLessThan(200);
    }
    const unknown = await raw(`${base}/api/sessions?status=${"y".repeat(5000)}`);
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).error.length).toBeLessThan(200);
    const approval = await raw(`${base}/api/sessions/shop/approvals/${"z".repeat(5000)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", argsHash: "0" }),
    });
    expect(approval.status).toBe(409);
    expect(JSON.parse(approval.body).error.length).toBeLessThan(200);
  });
});

describe("analysis", () => {
  it("rebuilds messages and deps at a seq and diffs them against the previous event", () => {
    const initial = stateAt(events, 1);
    expect(initial.deps).toEqual({ cart: [], prefs: { theme: "light" } });
    expect(initial.diff).toEqual({ added: ["cart", "prefs"], removed: [], changed: [] });

    const append = seqOf(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c1",
    );
    const atAppend = stateAt(events, append);
    expect(atAppend.deps).toEqual({ cart: ["milk <b>&</b> eggs"], prefs: { theme: "light" } });
    expect(atAppend.previousDeps).toEqual({ cart: [], prefs: { theme: "light" } });
    expect(atAppend.diff).toEqual({ added: ["cart[0]"], removed: [], changed: [] });
    expect(atAppend.messages).toEqual(projectMessages(events.filter((event) => event.seq <= append)));

    const merge = seqOf(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c2",
    );
    expect(stateAt(events, merge).diff).toEqual({ added: [], removed: [], changed: ["prefs.theme"] });
    // A surface event changes no deps.
    expect(
      stateAt(
        events,
        seqOf((event) => event.type === "user_message"),
      ).diff,
    ).toEqual({
      added: [],
      removed: [],
      changed: [],
    });
    expect(diffDeps({ a: [1, 2], "b c": 1, n: { x: 1 } }, { a: [1], n: 2 })).toEqual({
      added: [],
      removed: ['["b c"]', "a[1]"],
      changed: ["n"],
    });
  });
});

describe("the JSON API", () => {
  it("lists sessions with status, agent, model, event count, usage and cost, filtered by search and status", async () => {
    const all = JSON.parse((await raw(`${base}/api/sessions`)).body);
    const byId = new Map<string, SessionRow>(all.sessions.map((s: { sessionId: string }) => [s.sessionId, s]));
    expect(byId.get("shop")).toMatchObject({ status: "awaiting_approval", agent: "shopper", model: "scripted:gpt-4o" });
    expect(byId.get("shop")?.eventCount).toBe(events.length);
    expect(byId.get("shop")?.totals.usage).toMatchObject({ requests: 3, inputTokens: 540, outputTokens: 39 });
    expect(byId.get("shop")?.totals.cost).toBeCloseTo((540 * 2.5 + 39 * 10) / 1e6, 10);
    expect(byId.get("shop")?.pendingApprovals).toHaveLength(1);
    expect(byId.get("helper")).toMatchObject({ status: "completed", agent: "researcher" });
    expect(byId.get("broken")).toMatchObject({ status: "failed", agent: "flaky" });
    expect(byId.get("broken")?.totals.cost).toBeUndefined();

    const ids = async (query: string) =>
      JSON.parse((await raw(`${base}/api/sessions?${query}`)).body).sessions.map(
        (s: { sessionId: string }) => s.sessionId,
      );
    expect(await ids("status=failed")).toEqual(["broken"]);
    expect(await ids("status=completed,failed")).toEqual(expect.arrayContaining(["broken", "helper"]));
    expect(await ids("search=HELP")).toEqual(["helper"]);
    expect(await ids("search=gpt-4o")).toEqual(["shop"]);
    const first = JSON.parse((await raw(`${base}/api/sessions?limit=1`)).body);
    expect(first.sessions).toHaveLength(1);
    const second = JSON.parse(
      (await raw(`${base}/api/sessions?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`)).body,
    );
    expect(second.sessions[0].sessionId).not.toBe(first.sessions[0].sessionId);
    expect((await raw(`${base}/api/sessions?status=bogus`)).status).toBe(400);
    expect((await raw(`${base}/api/sessions/nope`)).status).toBe(404);
  });

  it("shows a run no process holds any more as interrupted, and a leased one as running", async () => {
    const started = { seq: 1, at: "2025-01-01T00:00:00.000Z", type: "run_started", data: { runId: "r" } } as const;
    await store.append("crashed", [started], { expectedLastSeq: 0 });
    const lease = await store.acquireLease("live", { owner: "worker", ttlMs: 60_000 });
    await store.append("live", [started], { expectedLastSeq: 0, fence: lease.token });
    try {
      const list = async (query: string) =>
        JSON.parse((await raw(`${base}/api/sessions?${query}`)).body).sessions.map(
          (s: { sessionId: string; status: string }) => [s.sessionId, s.status],
        );
      expect(await list("status=interrupted")).toEqual([["crashed", "interrupted"]]);
      expect(await list("status=running")).toEqual([["live", "running"]]);
    } finally {
      await store.releaseLease(lease);
      await store.delete("crashed");
      await store.delete("live");
    }
  });

  it("serves events, the state at a seq with its diff, and per-request tokens and latency", async () => {
    const after = JSON.parse((await raw(`${base}/api/sessions/shop/events?after=${events.length - 2}`)).body);
    expect(after.events.map((event: SessionEvent) => event.seq)).toEqual([events.length - 1, events.length]);
    const append = seqOf(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c1",
    );
    const state = JSON.parse((await raw(`${base}/api/sessions/shop/state?seq=${append}`)).body);
    expect(state).toMatchObject({ seq: append, deps: { cart: ["milk <b>&</b> eggs"] }, diff: { added: ["cart[0]"] } });
    expect(state.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"]);
    expect((await raw(`${base}/api/sessions/shop/state?seq=x`)).status).toBe(400);
    const { requests } = JSON.parse((await raw(`${base}/api/sessions/shop/requests`)).body);
    expect(requests.map((r: { inputTokens: number; outputTokens: number }) => [r.inputTokens, r.outputTokens])).toEqual(
      [
        [120, 18],
        [180, 12],
        [240, 9],
      ],
    );
    for (const r of requests) expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    const usage = JSON.parse((await raw(`${base}/api/sessions/shop/usage`)).body);
    expect(usage.usage.totalTokens).toBe(579);
  });

  it("streams new events live over SSE; refuses a stale args hash and edited approval arguments that fail the tool's schema (nothing written); approves, resumes and forks", async () => {
    const lastSeq = events.length;
    const controller = new AbortController();
    const response = await fetch(`${base}/api/sessions/shop/stream?after=${lastSeq}`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const received: { event?: string; data: string }[] = [];
    const parser = createParser({ onEvent: (message) => received.push(message) });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error("stream ended");
        parser.feed(chunk.value);
      }
    };
    await readUntil(() => received.some((message) => message.event === "ready"));

    const session = JSON.parse((await raw(`${base}/api/sessions/shop`)).body);
    const [approval] = session.pendingApprovals;
    expect(approval).toMatchObject({ toolCallId: "c3", toolName: "checkout", args: { total: 12 } });
    const url = `${base}/api/sessions/shop/approvals/c3`;
    const headers = { "content-type": "application/json" };
    const stale = await raw(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ decision: "approve", argsHash: "0" }),
    });
    expect(stale.status).toBe(409);
    // Edited arguments that fail the tool's schema are refused with the schema error; nothing is written.
    const invalidEdit = await raw(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ decision: "approve", argsHash: approval.argsHash, args: { total: "twelve" } }),
    });
    expect(invalidEdit.status).toBe(400);
    expect(JSON.parse(invalidEdit.body).error).toMatch(/Invalid edited arguments for tool "checkout": total/);
    expect(await store.read("shop")).toHaveLength(lastSeq);
    const decided = await raw(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ decision: "approve", argsHash: approval.argsHash }),
    });
    expect(JSON.parse(decided.body)).toEqual({ decided: "c3", remaining: 0, resumed: true });
    expect(resumed).toEqual(["shop"]);

    await readUntil(() =>
      received.some((message) => message.event === "events" && message.data.includes('"type":"run_completed"')),
    );
    controller.abort();
    // The server notices the disconnect and stops polling the store.
    await new Promise((resolve) => setTimeout(resolve, 750));
    const readsAfterDisconnect = reads;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(reads).toBe(readsAfterDisconnect);
    const streamed = received
      .filter((message) => message.event === "events")
      .flatMap((message) => JSON.parse(message.data).events as SessionEvent[]);
    expect(streamed[0]?.seq).toBe(lastSeq + 1);
    expect(streamed.map((event) => event.seq)).toEqual(streamed.map((_, index) => lastSeq + 1 + index));
    expect(streamed.map((event) => event.type)).toContain("approval_decided");
    const last = received.filter((message) => message.event === "events").at(-1);
    expect(JSON.parse(last?.data ?? "{}").session.status).toBe("completed");
    expect((await store.get("shop"))?.status).toBe("completed");

    const replay = await raw(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ decision: "approve", argsHash: approval.argsHash }),
    });
    expect(replay.status).toBe(409);

    const fork = await raw(`${base}/api/sessions/shop/fork`, {
      method: "POST",
      headers,
      body: JSON.stringify({ atSeq: 5 }),
    });
    const { sessionId } = JSON.parse(fork.body);
    expect(await store.get(sessionId)).toMatchObject({ parentSessionId: "shop", forkedAtSeq: 5, eventCount: 5 });
    const bad = await raw(`${base}/api/sessions/shop/fork`, {
      method: "POST",
      headers,
      body: JSON.stringify({ atSeq: "x" }),
    });
    expect(bad.status).toBe(400);
  });
});

describe("the cost of a session written before costs were recorded", () => {
  it("is priced from the bundled price data at the time of each response", async () => {
    // An older log: model_response has no `cost`. gpt-4o: input 2.5, cache read 1.25, output 10 per million.
    const at = "2025-06-01T12:00:00.000Z";
    await store.append(
      "legacy",
      [
        { seq: 1, at, type: "run_started", data: { runId: "r1", agent: "old", model: "openai:gpt-4o" } },
        { seq: 2, at, type: "user_message", data: { content: "hi" } },
        { seq: 3, at, type: "model_request", data: { model: "openai:gpt-4o", iteration: 0, messageCount: 1 } },
        {
          seq: 4,
          at,
          type: "model_response",
          data: {
            model: "openai:gpt-4o-2024-08-06",
            usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 500, totalTokens: 1500 },
            finishReason: "stop",
            latencyMs: 12,
          },
        },
        { seq: 5, at, type: "assistant_message", data: { content: [{ type: "text", text: "hello" }] } },
        { seq: 6, at, type: "run_completed", data: { runId: "r1", output: "hello" } },
      ],
      { expectedLastSeq: 0 },
    );
    try {
      // 600 uncached × 2.5 + 400 cached × 1.25 + 500 × 10 = 1500 + 500 + 5000 per million.
      const expected = 0.007;
      const totals = JSON.parse((await raw(`${base}/api/sessions/legacy/usage`)).body);
      expect(totals.cost).toBeCloseTo(expected, 12);
      expect(totals.costPartial).toBe(false);
      const { requests } = JSON.parse((await raw(`${base}/api/sessions/legacy/requests`)).body);
      expect(requests[0].cost).toBeCloseTo(expected, 12);
      expect(requests[0].costDetail).toEqual({
        source: "genai-prices@0.1.8",
        priceModel: "openai:gpt-4o",
        usd: expected,
        inputUsd: 0.0015,
        cacheReadUsd: 0.0005,
        outputUsd: 0.005,
      });
    } finally {
      await store.delete("legacy");
    }
  });

  it("a session recorded with costs shows them as recorded", async () => {
    const { requests } = JSON.parse((await raw(`${base}/api/sessions/helper/requests`)).body);
    // The helper's scripted model has no price: looked up, not priced.
    expect(requests[0].costDetail).toEqual({ source: "genai-prices@0.1.8" });
    expect(requests[0].cost).toBeUndefined();
  });
});
