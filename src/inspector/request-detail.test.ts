import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory-store.js";
import { stateAt } from "./analysis.js";
import { inspectorApi } from "./api.js";
import { operationChanges, requestDetail } from "./request-detail.js";
import { recordFixtures, sentSession } from "./test-support/recorded-sessions.js";

describe("the request detail and the deps changes the inspector shows", () => {
  const { events, seqs } = sentSession();

  it("resolves a request as sent: system text, tools, settings, window messages, its response and notices", () => {
    const detail = requestDetail(events, seqs.request);
    expect(detail.wire).toEqual({ api: "openai-responses", modelId: "gpt-4o" });
    expect(detail.stream).toBe(true);
    expect(detail.request.instructions).toMatch(/^You are terse\./);
    expect(detail.request.tools.map((tool) => tool.name)).toEqual(["lookup"]);
    expect(detail.request.settings).toMatchObject({ temperature: 0.2, maxOutputTokens: 256 });
    expect(detail.request.toolChoice).toBe("required");
    expect(detail.request.messages).toHaveLength(1);
    expect(detail.response).toMatchObject({ seq: seqs.response, responseId: "msg_01ABC", requestId: "req_42" });
    expect(detail.notices.map((event) => event.type)).toEqual(["model_retry", "model_stream_reset", "model_fallback"]);
  });

  it("at a fallback, the same request over the fallback model's wire; a request cut off has no response", () => {
    expect(requestDetail(events, seqs.fallback)).toMatchObject({ seq: seqs.fallback, wire: { api: "anthropic" } });
    const second = requestDetail(events, seqs.secondRequest);
    expect(second.response).toBeUndefined();
    expect(second.request.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(second.notices.map((event) => event.type)).toEqual(["partial_response"]);
  });

  it("gives each operation of a context_update its old and new value (set, merge, append, delete)", () => {
    const state = stateAt(events, seqs.update);
    expect(state.operations).toEqual([
      { op: "set", key: "count", before: 1, after: 2, existedBefore: true, existsAfter: true },
      {
        op: "merge",
        key: "prefs",
        before: { theme: "light", lang: "en" },
        after: { theme: "dark", lang: "en" },
        existedBefore: true,
        existsAfter: true,
      },
      { op: "append", key: "cart", before: ["milk"], after: ["milk", "eggs"], existedBefore: true, existsAfter: true },
      { op: "delete", key: "draft", before: "x", existedBefore: true, existsAfter: false },
    ]);
    expect(stateAt(events, seqs.result).operations).toBeUndefined();
    // Operations on one key see the earlier ones: the second append starts from the first.
    expect(
      operationChanges({}, [
        { op: "append", key: "a", item: 1 },
        { op: "append", key: "a", item: 2 },
      ]).map((change) => [change.before, change.after]),
    ).toEqual([
      [undefined, [1]],
      [[1], [1, 2]],
    ]);
  });

  it("serves GET /sessions/:id/requests/:seq; a seq that is no request is a 400, an unknown session a 404", async () => {
    const store = new MemoryStore();
    await recordFixtures(store, 50);
    const api = inspectorApi({ store, signal: new AbortController().signal });
    const ok = await api.request(`/sessions/sent/requests/${seqs.request}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ seq: seqs.request, request: { tools: [{ name: "lookup" }] } });
    expect((await api.request(`/sessions/sent/requests/${seqs.call}`)).status).toBe(400);
    expect((await api.request("/sessions/sent/requests/x")).status).toBe(400);
    expect((await api.request("/sessions/nope/requests/1")).status).toBe(404);
    // The state at an event can carry only its latest messages, with the count of all.
    const state = await (await api.request(`/sessions/sent/state?seq=${seqs.result}&lastMessages=1`)).json();
    expect(state).toMatchObject({ messageCount: 3, messages: [{ role: "tool" }] });
    expect((await api.request(`/sessions/sent/state?seq=${seqs.result}&lastMessages=x`)).status).toBe(400);
  });
});
