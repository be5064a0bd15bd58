import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { DepthLimitExceededError } from "../errors/run-errors.js";
import { StoreClosedError } from "../errors/store-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import type { NestedCallOutcome } from "../session/run-seam.js";
import { MemoryStore } from "../store/memory-store.js";
import { runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

const add = tool({
  name: "add",
  description: "x",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new().append("sums", a + b) }),
});
const guarded = tool({
  name: "guarded",
  description: "x",
  input: z.object({}),
  needsApproval: true,
  execute: () => "ran",
});

/** A tool that dispatches nested calls through the seam (one after another) and returns their outcomes. */
const dispatcher = tool({
  name: "dispatch",
  description: "x",
  input: z.object({ calls: z.array(z.object({ name: z.string(), args: z.unknown() })) }),
  execute: async ({ calls }, context) => {
    const outcomes: NestedCallOutcome[] = [];
    for (const [index, call] of calls.entries()) {
      outcomes.push(
        (await context.seam?.callTool({
          toolName: call.name,
          args: call.args,
          parentToolCallId: context.toolCallId ?? "",
          toolCallId: `${context.toolCallId}.${index}`,
        })) as NestedCallOutcome,
      );
    }
    return outcomes;
  },
});

/** The same, all calls at once (Promise.all). */
const fanOut = tool({
  name: "fan_out",
  description: "x",
  input: z.object({ count: z.number() }),
  execute: async ({ count }, context) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        context.seam?.callTool({
          toolName: "add",
          args: { a: index, b: 100 },
          parentToolCallId: context.toolCallId ?? "",
          toolCallId: `${context.toolCallId}.${index}`,
        }),
      ),
    ),
});

type Data = { toolCallId?: string; parentToolCallId?: string; result?: unknown; isError?: boolean };
const dataOf = (event: SessionEvent) => event.data as Data;
const plain = (events: readonly SessionEvent[]) => events.map(({ seq, type, data }) => ({ seq, type, data }));

describe("the run seam", () => {
  it("checks nested calls like direct ones: schema, preToolUse, approval (fail closed), and counts them", async () => {
    const calls = [
      { name: "add", args: { a: 1, b: 2 } },
      { name: "add", args: { a: "x" } },
      { name: "guarded", args: {} },
      { name: "add", args: { a: 5, b: 5 } },
      { name: "nope", args: {} },
    ];
    const model = new ScriptedModel([{ toolCalls: [{ id: "d", name: "dispatch", args: { calls } }] }, { text: "ok" }]);
    const agent = new Agent({
      model,
      tools: [dispatcher, add, guarded],
      hooks: {
        preToolUse: (call) =>
          (call.args as { a?: number }).a === 5 ? { type: "deny", reason: "no fives" } : undefined,
      },
    });
    const result = await runChecked(agent, "go");
    const outcomes = model.requests[1]?.messages.at(-1) as { result: NestedCallOutcome[] };
    expect(outcomes.result.map((outcome) => [outcome.result, outcome.isError, outcome.ran])).toEqual([
      [3, false, true],
      [expect.stringMatching(/Invalid arguments for tool "add"/), true, false],
      [expect.stringMatching(/needs approval/), true, false],
      ["Tool call denied: no fives", true, false],
      [expect.stringMatching(/Unknown tool "nope"/), true, false],
    ]);
    expect(result.usage.toolCalls).toBe(2); // dispatch itself and the one nested add that ran
    // The run recorded and folded the nested calls itself: refused ones without an intent.
    expect(result.deps).toEqual({ sums: [3] });
    const nested = result.log.filter((event) => dataOf(event).parentToolCallId === "d");
    expect(nested.map((event) => [event.type, dataOf(event).toolCallId])).toEqual([
      ["tool_call", "d.0"],
      ["context_update", "d.0"],
      ["tool_call_result", "d.0"],
      ["tool_call_refused", "d.1"],
      ["tool_call_refused", "d.2"],
      ["tool_call_refused", "d.3"],
      ["tool_call_refused", "d.4"],
    ]);
    // The caller gets no update to fold again.
    expect(outcomes.result[0]).not.toHaveProperty("update");
  });

  it("commits each nested intent before its tool runs; its update and result follow, in program order, at their real times", async () => {
    const store = new MemoryStore();
    let clock = Date.parse("2026-01-01T00:00:00.000Z");
    const committedBeforeRun: boolean[] = [];
    const step = tool({
      name: "step",
      description: "x",
      input: z.object({ n: z.number() }),
      execute: async ({ n }, context) => {
        const stored = await store.read("s");
        committedBeforeRun.push(
          stored.some(
            (event) =>
              event.type === "tool_call" &&
              dataOf(event).toolCallId === context.toolCallId &&
              dataOf(event).parentToolCallId === "d",
          ),
        );
        clock += 1000; // the tool takes a second
        return { result: n * 10, update: ContextUpdate.new().append("steps", n).logEvent("stepped", { n }) };
      },
    });
    const calls = [
      { name: "step", args: { n: 1 } },
      { name: "step", args: { n: 2 } },
    ];
    const model = new ScriptedModel([{ toolCalls: [{ id: "d", name: "dispatch", args: { calls } }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [dispatcher, step], now: () => new Date(clock) });
    const result = await runChecked(agent, "go", { sessionId: "s", store });
    expect(committedBeforeRun).toEqual([true, true]);

    const at = (seconds: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + seconds * 1000).toISOString();
    const nested = result.log.filter((event) => dataOf(event).toolCallId?.startsWith("d."));
    expect(nested.map((event) => [event.type, dataOf(event).toolCallId, event.at])).toEqual([
      ["tool_call", "d.0", at(0)],
      ["context_update", "d.0", at(1)],
      ["tool_call_result", "d.0", at(1)],
      ["tool_call", "d.1", at(1)],
      ["context_update", "d.1", at(2)],
      ["tool_call_result", "d.1", at(2)],
    ]);
    for (const event of nested) expect(dataOf(event).parentToolCallId).toBe("d");
    expect(nested.filter((event) => event.type === "tool_call_result").map((event) => dataOf(event).result)).toEqual([
      10, 20,
    ]);
    // Each update's log events follow it; all of it before the parent's own result.
    const types = result.log.map((event) => event.type);
    expect(types.indexOf("stepped")).toBeGreaterThan(result.log.indexOf(nested[1] as SessionEvent));
    expect(types.lastIndexOf("tool_result")).toBeGreaterThan(result.log.indexOf(nested[5] as SessionEvent));
    expect(result.deps).toEqual({ steps: [1, 2] });
    // Nested results are bookkeeping: the model sees only the parent's result.
    expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(1);
    expect(plain(await store.read("s"))).toEqual(plain(result.log));
  });

  it("serializes the commits of concurrent nested calls (Promise.all, parallel tool calls): each event once, in order", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "p", name: "fan_out", args: { count: 6 } },
          { id: "q", name: "fan_out", args: { count: 6 } },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, tools: [fanOut, add], parallelToolCalls: true });
    const result = await runChecked(agent, "go", { sessionId: "s", store });
    const stored = await store.read("s");
    expect(plain(stored)).toEqual(plain(result.log));
    for (const parent of ["p", "q"]) {
      for (let index = 0; index < 6; index++) {
        const id = `${parent}.${index}`;
        const of = (type: string) => stored.filter((event) => event.type === type && dataOf(event).toolCallId === id);
        expect(of("tool_call"), id).toHaveLength(1);
        expect(of("tool_call_result"), id).toHaveLength(1);
      }
    }
    expect([...(result.deps as { sums: number[] }).sums].sort((a, b) => a - b)).toEqual([
      100, 100, 101, 101, 102, 102, 103, 103, 104, 104, 105, 105,
    ]);
  });

  it("stops the run, running nothing, when a nested intent cannot be committed", async () => {
    const inner = new MemoryStore();
    const failing = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "append") {
          return async (sessionId: string, events: readonly SessionEvent[], options: { expectedLastSeq: number }) => {
            if (events.some((event) => event.type === "tool_call" && dataOf(event).parentToolCallId !== undefined)) {
              throw new StoreClosedError({ backend: "memory" });
            }
            return target.append(sessionId, events, options);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    let executed = 0;
    const effect = tool({
      name: "effect",
      description: "x",
      input: z.object({}),
      execute: () => {
        executed += 1;
        return "done";
      },
    });
    const calls = [{ name: "effect", args: {} }];
    const model = new ScriptedModel([{ toolCalls: [{ id: "d", name: "dispatch", args: { calls } }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [dispatcher, effect] });
    await expect(agent.run("go", { sessionId: "s", store: failing })).rejects.toBeInstanceOf(StoreClosedError);
    expect(executed).toBe(0);
  });

  it("never changes deps a running tool holds: a parallel call keeps the turn's deps while a nested update folds", async () => {
    let nestedDone!: () => void;
    const folded = new Promise<void>((resolve) => {
      nestedDone = resolve;
    });
    const set = tool({
      name: "set",
      description: "x",
      input: z.object({ n: z.number() }),
      // Returns an update without reading deps, so the run would otherwise write in place.
      execute: ({ n }) => ({ result: n, update: ContextUpdate.new().set("counter", n) }),
    });
    const nestOnce = tool({
      name: "nest_once",
      description: "x",
      input: z.object({}),
      execute: async (_args, context) => {
        await context.seam?.callTool({
          toolName: "set",
          args: { n: 2 },
          parentToolCallId: context.toolCallId ?? "",
          toolCallId: `${context.toolCallId}.1`,
        });
        nestedDone();
        return "nested";
      },
    });
    const peek = tool({
      name: "peek",
      description: "x",
      input: z.object({}),
      execute: async (_args, context) => {
        await folded;
        return (context.deps as { counter?: number }).counter;
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "a", name: "set", args: { n: 1 } }] },
      {
        toolCalls: [
          { id: "n", name: "nest_once", args: {} },
          { id: "p", name: "peek", args: {} },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, tools: [set, nestOnce, peek], parallelToolCalls: true });
    const result = await runChecked(agent, "go");
    const peeked = result.messages.find((message) => message.role === "tool" && message.toolCallId === "p");
    expect((peeked as { result: unknown }).result).toBe(1);
    expect(result.deps).toEqual({ counter: 2 });
  });

  it("records the arguments a hook changed, with the requested ones beside them", async () => {
    const calls = [{ name: "add", args: { a: 1, b: 2 } }];
    const model = new ScriptedModel([{ toolCalls: [{ id: "d", name: "dispatch", args: { calls } }] }, { text: "ok" }]);
    const agent = new Agent({
      model,
      tools: [dispatcher, add],
      hooks: {
        preToolUse: (call) =>
          call.toolName === "add" ? { type: "modify", args: { ...(call.args as object), b: 20 } } : undefined,
      },
    });
    const result = await runChecked(agent, "go");
    const intent = result.log.find((event) => event.type === "tool_call" && dataOf(event).toolCallId === "d.0");
    expect(intent?.data).toEqual({
      toolCallId: "d.0",
      toolName: "add",
      parentToolCallId: "d",
      args: { a: 1, b: 20 },
      requestedArgs: { a: 1, b: 2 },
    });
    expect(result.deps).toEqual({ sums: [21] });
  });

  it("enforces the sub-agent depth limit", async () => {
    const leaf = new Agent({ model: new ScriptedModel([]), maxDepth: 1 });
    const nest = tool({
      name: "nest",
      description: "x",
      input: z.object({}),
      execute: async (_args, context) => {
        const seam = context.seam;
        if (!seam) throw new Error("no seam");
        const deeper = { ...seam, depth: seam.depth + 1 };
        await leaf.run("x", { parent: { seam: deeper, toolCallId: context.toolCallId ?? "" } });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "nest" }] }, { text: "ok" }]);
    await new Agent({ model, tools: [nest] }).run("go");
    const message = model.requests[1]?.messages.at(-1) as { result: string };
    expect(message.result).toContain("at most 1 levels");
    await expect(leaf.run("x", { parent: { seam: { depth: 5 } as never, toolCallId: "t" } })).rejects.toThrow(
      DepthLimitExceededError,
    );
  });
});
