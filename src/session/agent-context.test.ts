import { describe, expect, it } from "vitest";
import { ContextUpdate } from "../context/context-update.js";
import { captureLogger } from "../test-support/capture-logger.js";
import { AgentContext } from "./agent-context.js";
import { projectDeps, projectMessages } from "./projections.js";
import { RunContext } from "./run-context.js";

const fixedClock = () => new Date("2026-01-01T00:00:00.000Z");

describe("AgentContext", () => {
  it("addMessage appends the matching surface event for each role", () => {
    const context = AgentContext.create({ deps: {}, now: fixedClock })
      .addMessage({ role: "system", content: "be brief" })
      .addMessage({ role: "user", content: "hi" })
      .addMessage({ role: "assistant", content: "hello" })
      .addMessage({ role: "tool", toolCallId: "c1", toolName: "t", result: { ok: true } });
    expect(context.log.events.map((event) => event.type)).toEqual([
      "system_message",
      "user_message",
      "assistant_message",
      "tool_result",
    ]);
    expect(context.log.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(context.log.events[0]?.at).toBe("2026-01-01T00:00:00.000Z");
    expect(context.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
      { role: "tool", toolCallId: "c1", toolName: "t", result: { ok: true }, isError: false },
    ]);
  });

  it("create with messages records them as surface events", () => {
    const context = AgentContext.create({ deps: {}, messages: [{ role: "user", content: "a" }] });
    expect(context.messages).toEqual([{ role: "user", content: "a" }]);
    expect(context.log.length).toBe(1);
  });

  it("logEvent records bookkeeping that projects to no message", () => {
    const context = AgentContext.create({ deps: {} }).addMessage({ role: "user", content: "hi" }).logEvent("audit", {
      table: "todos",
    });
    expect(context.log.length).toBe(2);
    expect(context.log.at(-1)).toMatchObject({ type: "audit", data: { table: "todos" }, seq: 2 });
    expect(context.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it.each([
    "user_message",
    "assistant_message",
    "tool_result",
    "system_message",
    "context_update",
  ])("logEvent refuses %s with a warning naming the type and leaves the log unchanged", (type) => {
    const logs = captureLogger();
    const context = AgentContext.create({ deps: {} });
    const next = context.logEvent(type, { content: "smuggled" });
    expect(next).toBe(context);
    expect(next.log.length).toBe(0);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.level).toBe("warn");
    expect(logs[0]?.message).toContain(type);
  });

  it("is immutable: transitions return new contexts and leave the old one as it was", () => {
    const first = AgentContext.create({ deps: { n: 1 } as Record<string, unknown> });
    const second = first.addMessage({ role: "user", content: "x" });
    const third = ContextUpdate.new().set("n", 2).apply(second);
    expect(first.log.length).toBe(0);
    expect(first.messages).toEqual([]);
    expect(second.deps).toEqual({ n: 1 });
    expect(third.deps).toEqual({ n: 2 });
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(third.log.events)).toBe(true);
    expect(Object.isFrozen(third.log.events[0])).toBe(true);
    expect(() => {
      (first as unknown as { deps: unknown }).deps = {};
    }).toThrow(TypeError);
  });

  it("branching from an older context does not disturb the newer one", () => {
    const base = AgentContext.create({ deps: {} }).addMessage({ role: "user", content: "a" });
    const left = base.addMessage({ role: "user", content: "left" });
    const right = base.logEvent("x", 1).addMessage({ role: "user", content: "right" });
    expect(left.messages.map((message) => (message as { content: unknown }).content)).toEqual(["a", "left"]);
    expect(right.messages.map((message) => (message as { content: unknown }).content)).toEqual(["a", "right"]);
    expect(left.log.events.map((event) => event.type)).toEqual(["user_message", "user_message"]);
    expect(right.log.events.map((event) => event.type)).toEqual(["user_message", "x", "user_message"]);
  });

  it("deps and messages stay equal to the projections of the log", () => {
    const initial = { todos: [] as string[], settings: { a: 1 } };
    let context = AgentContext.create({ deps: initial });
    context = ContextUpdate.new<typeof initial>().append("todos", "milk").logEvent("db_write").apply(context);
    context = context.addMessage({ role: "user", content: "more" });
    context = ContextUpdate.new<typeof initial>().merge("settings", { a: 2 }).append("todos", "eggs").apply(context);
    expect(projectDeps(context.log, initial)).toEqual(context.deps);
    expect(projectMessages(context.log)).toEqual(context.messages);
    expect(context.deps).toEqual({ todos: ["milk", "eggs"], settings: { a: 2 } });
    expect(initial).toEqual({ todos: [], settings: { a: 1 } });
  });
});

describe("RunContext", () => {
  it("carries deps and the run seam; withDeps returns a new context", () => {
    const signal = new AbortController().signal;
    const context = RunContext.create({ deps: { a: 1 }, retry: 2, signal, toolCallId: "c1", toolName: "t" });
    const next = context.withDeps({ a: 2 });
    expect(next).not.toBe(context);
    expect(context.deps).toEqual({ a: 1 });
    expect(next).toMatchObject({ deps: { a: 2 }, retry: 2, signal, toolCallId: "c1", toolName: "t" });
    expect(Object.isFrozen(context)).toBe(true);
    expect(RunContext.create({ deps: {} }).signal.aborted).toBe(false);
  });
});
