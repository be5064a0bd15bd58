import { describe, expect, it } from "vitest";
import { ContextUpdate } from "../context/context-update.js";
import { SessionLogFormatError } from "../errors/session-log-format-error.js";
import { AgentContext } from "./agent-context.js";
import { deserializeLog, SESSION_LOG_SCHEMA_VERSION, serializeLog } from "./serialization.js";

function sampleContext() {
  let context = AgentContext.create({ deps: { notes: [] as unknown[] } })
    .addMessage({ role: "system", content: "sys" })
    .addMessage({ role: "user", content: [{ type: "text", text: "héllo 👋 \u0000 \u2028" }] })
    .addMessage({
      role: "assistant",
      content: [
        { type: "reasoning", text: "thinking", providerMetadata: { anthropic: { signature: "sig" } } },
        { type: "tool-call", toolCallId: "c1", toolName: "note", args: { text: "x", nested: [1, { y: null }] } },
      ],
    });
  context = ContextUpdate.new()
    .append("notes", JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}'))
    .logEvent("audit", { at: 1.5, big: 2 ** 53 - 1, neg: -0.25 })
    .apply(context);
  return context.addMessage({ role: "tool", toolCallId: "c1", toolName: "note", result: "ok", isError: true });
}

describe("session log serialization", () => {
  it("round-trips losslessly", () => {
    const log = sampleContext().log;
    const text = serializeLog(log);
    const restored = deserializeLog(text);
    expect(restored.events).toEqual(log.events);
    expect(restored.messages).toEqual(log.messages);
    expect(serializeLog(restored)).toBe(text);
    expect(JSON.parse(text).schemaVersion).toBe(SESSION_LOG_SCHEMA_VERSION);
    const notes = (
      restored.events.find((event) => event.type === "context_update")?.data as { operations: { item: object }[] }
    ).operations[0]?.item;
    expect(Object.keys(notes ?? {})).toEqual(["__proto__", "constructor"]);
  });

  it("accepts the parsed document as well as the string", () => {
    const log = sampleContext().log;
    expect(deserializeLog(JSON.parse(serializeLog(log))).events).toEqual(log.events);
  });

  it.each([
    ["a missing schemaVersion", { events: [] }, "$.schemaVersion"],
    ["a wrong schemaVersion", { schemaVersion: 2, events: [] }, "$.schemaVersion"],
    ["a string schemaVersion", { schemaVersion: "1", events: [] }, "$.schemaVersion"],
    ["events that are not a list", { schemaVersion: 1, events: {} }, "$.events"],
    ["a gap in seq", { schemaVersion: 1, events: [ev(1), ev(3)] }, "$.events[1].seq"],
    ["a duplicate seq", { schemaVersion: 1, events: [ev(1), ev(1)] }, "$.events[1].seq"],
    ["an event without a type", { schemaVersion: 1, events: [{ seq: 1, at: "t", data: {} }] }, "$.events[0].type"],
    ["an event without data", { schemaVersion: 1, events: [{ seq: 1, at: "t", type: "x" }] }, "$.events[0].data"],
    [
      "a surface event with no object",
      { schemaVersion: 1, events: [{ ...ev(1), type: "user_message", data: 1 }] },
      "$.events[0].data",
    ],
    ["an array", [], "$"],
  ])("rejects %s with a typed error", (_name, document, path) => {
    let error: unknown;
    try {
      deserializeLog(JSON.stringify(document));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionLogFormatError);
    expect(error).toMatchObject({ code: "session_log_format", path });
  });

  it("rejects text that is not JSON", () => {
    expect(() => deserializeLog("{nope")).toThrow(SessionLogFormatError);
  });
});

function ev(seq: number) {
  return { seq, at: "2026-01-01T00:00:00.000Z", type: "audit", data: {} };
}
