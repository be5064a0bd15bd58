import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ToolRetriesExceededError, ToolRetryError } from "../errors/run-errors.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { ModelRequest } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { ToolMessage } from "../session/messages.js";
import { runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

type Deps = { seen: string[] };

/** A tool that reads the list at "seen", records what it saw, and appends its label. */
const recorder = tool({
  name: "record",
  description: "append a label",
  input: z.object({ label: z.string() }),
  execute: ({ label }, context: import("../session/run-context.js").RunContext<Deps>) => ({
    result: { sawBefore: [...context.deps.seen] },
    update: ContextUpdate.new<Deps>().append("seen", label),
  }),
});

function toolResults(request: ModelRequest | undefined): ToolMessage[] {
  return (request?.messages ?? []).filter((message): message is ToolMessage => message.role === "tool");
}

describe("tool execution", () => {
  it("sequential: call N+1 sees the deps left by calls 1..N", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "record", args: { label: "a" } },
          { name: "record", args: { label: "b" } },
        ],
      },
      { text: "done" },
    ]);
    const result = await runChecked(new Agent<Deps>({ model, tools: [recorder] }), "go", { deps: { seen: [] } });
    expect(result.deps.seen).toEqual(["a", "b"]);
    expect(toolResults(model.requests[1]).map((message) => message.result)).toEqual([
      { sawBefore: [] },
      { sawBefore: ["a"] },
    ]);
  });

  it("parallel: both calls see the pre-turn deps, and both appends survive in call order", async () => {
    let running = 0;
    let overlapped = false;
    const slow = tool({
      name: "record",
      description: "append a label slowly",
      input: z.object({ label: z.string(), delay: z.number() }),
      execute: async ({ label, delay }, context: import("../session/run-context.js").RunContext<Deps>) => {
        running += 1;
        if (running > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, delay));
        running -= 1;
        return {
          result: { sawBefore: [...context.deps.seen] },
          update: ContextUpdate.new<Deps>().append("seen", label),
        };
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "record", args: { label: "first", delay: 30 } },
          { name: "record", args: { label: "second", delay: 1 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent<Deps>({ model, tools: [slow], parallelToolCalls: true });
    const result = await runChecked(agent, "go", { deps: { seen: ["x"] } });
    expect(overlapped).toBe(true);
    expect(result.deps.seen).toEqual(["x", "first", "second"]);
    expect(toolResults(model.requests[1]).map((message) => message.result)).toEqual([
      { sawBefore: ["x"] },
      { sawBefore: ["x"] },
    ]);
    const order = result.log
      .filter((event) => event.type === "tool_result")
      .map((event) => (event.data as { toolCallId: string }).toolCallId);
    expect(order).toEqual(["call_0_0", "call_0_1"]);
  });

  it.each([
    ["invalid JSON arguments", { name: "record", args: '{"label": "a"' }, /not valid JSON/],
    [
      "arguments failing the schema",
      { name: "record", args: { label: 42 } },
      /Invalid arguments for tool "record".*label/,
    ],
    ["an unknown tool", { name: "nope", args: {} }, /Unknown tool "nope".*record/],
  ])("%s: the tool never runs, the model is told, and the run still succeeds", async (_name, badCall, problem) => {
    let runs = 0;
    const counted = tool({
      name: "record",
      description: "x",
      input: z.object({ label: z.string() }),
      execute: ({ label }) => {
        runs += 1;
        return label;
      },
    });
    const model = new ScriptedModel([{ toolCalls: [badCall] }, { text: "recovered" }]);
    const result = await runChecked(new Agent({ model, tools: [counted] }), "go");
    expect(runs).toBe(0);
    const [message] = toolResults(model.requests[1]);
    expect(message?.isError).toBe(true);
    expect(String(message?.result)).toMatch(problem);
    expect(result.output).toBe("recovered");
    expect(result.log.some((event) => event.type === "tool_call")).toBe(false);
  });

  it("a thrown error becomes an error result the model sees", async () => {
    const failing = tool({
      name: "boom",
      description: "x",
      input: z.object({}),
      execute: () => {
        throw new Error("disk full");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "boom" }] }, { text: "sorry" }]);
    await runChecked(new Agent({ model, tools: [failing] }), "go");
    expect(toolResults(model.requests[1])[0]).toMatchObject({ isError: true, result: 'Tool "boom" failed: disk full' });
  });

  it("ToolRetryError gives the model the hint, bounded by the tool's retries", async () => {
    const picky = tool({
      name: "date",
      description: "x",
      input: z.object({ value: z.string() }),
      retries: 1,
      execute: ({ value }, context) => {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new ToolRetryError(`Use ISO dates (retry ${context.retry})`);
        return value;
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "date", args: { value: "tomorrow" } }] },
      { toolCalls: [{ name: "date", args: { value: "2026-01-02" } }] },
      { text: "ok" },
    ]);
    const result = await runChecked(new Agent({ model, tools: [picky] }), "go");
    expect(toolResults(model.requests[1])[0]).toMatchObject({ isError: true, result: "Use ISO dates (retry 0)" });
    expect(result.output).toBe("ok");

    const stubborn = new ScriptedModel([
      { toolCalls: [{ name: "date", args: { value: "a" } }] },
      { toolCalls: [{ name: "date", args: { value: "b" } }] },
    ]);
    const error = await new Agent({ model: stubborn, tools: [picky] }).run("go").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect((error as ToolRetriesExceededError).log?.at(-1)?.type).toBe("run_failed");
  });

  it("a per-tool timeout becomes an error result and aborts the tool's signal", async () => {
    let aborted = false;
    const sleepy = tool({
      name: "sleepy",
      description: "x",
      input: z.object({}),
      timeoutMs: 20,
      execute: (_args, context) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          context.signal.addEventListener("abort", () => {
            aborted = true;
            clearTimeout(timer);
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "sleepy" }] }, { text: "moved on" }]);
    const result = await runChecked(new Agent({ model, tools: [sleepy] }), "go");
    expect(aborted).toBe(true);
    expect(toolResults(model.requests[1])[0]).toMatchObject({
      isError: true,
      result: 'Tool "sleepy" timed out after 20 ms',
    });
    expect(result.output).toBe("moved on");
  });

  it("an invalid context update is an error result and nothing of it is applied", async () => {
    const bad = tool({
      name: "bad",
      description: "x",
      input: z.object({}),
      execute: () => ({ result: "ok", update: ContextUpdate.new().set("fine", 1).append("count", 1) }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "bad" }] }, { text: "ok" }]);
    const result = await runChecked(new Agent({ model, tools: [bad] }), "go", { deps: { count: 3 } });
    expect(result.deps).toEqual({ count: 3 });
    expect(toolResults(model.requests[1])[0]?.result).toMatch(/invalid context update.*"count"/);
    expect(result.log.some((event) => event.type === "context_update")).toBe(false);
  });

  it("validates tool names and rejects duplicates", () => {
    expect(() => tool({ name: "has space", description: "", input: z.object({}), execute: () => 1 })).toThrow(
      DefinitionError,
    );
    const one = tool({ name: "one", description: "", input: z.object({}), execute: () => 1 });
    expect(() => new Agent({ model: "test", tools: [one, one] })).toThrow(/Duplicate tool name "one"/);
  });

  it("accepts a plain JSON Schema as input", async () => {
    const add = tool({
      name: "add",
      description: "x",
      input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      execute: (args) => (args as { a: number; b: number }).a + (args as { a: number; b: number }).b,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "add", args: { a: 1 } },
          { name: "add", args: { a: 1, b: 2 } },
        ],
      },
      { text: "3" },
    ]);
    await runChecked(new Agent({ model, tools: [add] }), "go");
    const [invalid, valid] = toolResults(model.requests[1]);
    expect(invalid).toMatchObject({ isError: true });
    expect(String(invalid?.result)).toContain("b");
    expect(valid).toMatchObject({ isError: false, result: 3 });
  });
});
