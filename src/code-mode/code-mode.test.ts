import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { codeMode } from "./code-mode.js";
import { activeSandboxes } from "./sandbox.js";

type Deps = { sums?: number[]; seen?: number[][] };

const add = tool({
  name: "add",
  description: "Add two numbers",
  input: z.object({ a: z.number(), b: z.number().describe("the second one") }),
  execute: ({ a, b }, context) => ({
    result: a + b,
    update: ContextUpdate.new()
      .append("seen", [...((context.deps as Deps).sums ?? [])])
      .append("sums", a + b)
      .logEvent("added", { a, b }),
  }),
});
const guarded = tool({
  name: "guarded",
  description: "x",
  input: z.object({}),
  needsApproval: true,
  execute: () => "ran",
});
const echo = tool({
  name: "echo",
  description: "x",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Runs one program through an agent: the model calls run_code once, then answers. */
async function runProgram(code: string, options: { hooks?: object; tools?: object[]; deps?: Deps } = {}) {
  const model = new ScriptedModel([
    { toolCalls: [{ id: "prog", name: "run_code", args: { code } }] },
    { text: "done" },
  ]);
  const agent = new Agent<Deps>({
    model,
    tools: [add, guarded, echo, codeMode({ tools: [add, guarded, echo], limits: { timeMs: 2000 } })],
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  const result = await runChecked(agent, "go", { deps: options.deps ?? {} });
  const toolMessage = model.requests[1]?.messages.at(-1) as { role: string; result: unknown; isError: boolean };
  return { result, toolMessage, model };
}

describe("codeMode through an agent run", () => {
  it("folds nested updates into deps in program order, loops and Promise.all alike", async () => {
    const code = `
      let total = 0;
      for (let i = 1; i <= 3; i++) total = await tools.add({ a: total, b: i });
      const pair = await Promise.all([tools.add({ a: 10, b: 0 }), tools.add({ a: 20, b: 0 }), tools.echo({ text: "hi" })]);
      console.log("total", total);
      return { total, pair };`;
    const { result, toolMessage } = await runProgram(code);
    expect(toolMessage).toMatchObject({ role: "tool", isError: false });
    expect(toolMessage.result).toEqual({ result: { total: 6, pair: [10, 20, "hi"] }, console: "total 6" });
    expect(result.deps.sums).toEqual([1, 3, 6, 10, 20]);
    // each call saw the deps left by the calls before it, in program order
    expect(result.deps.seen).toEqual([[], [1], [1, 3], [1, 3, 6], [1, 3, 6, 10]]);

    const intents = result.log.filter(
      (event) => event.type === "tool_call" && "parentToolCallId" in (event.data as object),
    );
    expect(intents.map((event) => event.data)).toEqual([
      { toolCallId: "prog.1", toolName: "add", parentToolCallId: "prog", args: { a: 0, b: 1 } },
      { toolCallId: "prog.2", toolName: "add", parentToolCallId: "prog", args: { a: 1, b: 2 } },
      { toolCallId: "prog.3", toolName: "add", parentToolCallId: "prog", args: { a: 3, b: 3 } },
      { toolCallId: "prog.4", toolName: "add", parentToolCallId: "prog", args: { a: 10, b: 0 } },
      { toolCallId: "prog.5", toolName: "add", parentToolCallId: "prog", args: { a: 20, b: 0 } },
      { toolCallId: "prog.6", toolName: "echo", parentToolCallId: "prog", args: { text: "hi" } },
    ]);
    const results = result.log.filter((event) => event.type === "tool_call_result");
    expect(results.map((event) => event.data)).toEqual([
      expect.objectContaining({ toolCallId: "prog.1", toolName: "add", parentToolCallId: "prog", result: 1 }),
      expect.objectContaining({ toolCallId: "prog.2", result: 3 }),
      expect.objectContaining({ toolCallId: "prog.3", result: 6 }),
      expect.objectContaining({ toolCallId: "prog.4", result: 10 }),
      expect.objectContaining({ toolCallId: "prog.5", result: 20 }),
      expect.objectContaining({ toolCallId: "prog.6", toolName: "echo", result: "hi", isError: false }),
    ]);
    for (const event of results) expect(typeof (event.data as { durationMs: unknown }).durationMs).toBe("number");
    expect(result.log.filter((event) => event.type === "added").map((event) => event.data)).toEqual([
      { a: 0, b: 1 },
      { a: 1, b: 2 },
      { a: 3, b: 3 },
      { a: 10, b: 0 },
      { a: 20, b: 0 },
    ]);
    // the model saw only the program's call and result: no nested call reaches messages
    const tools = result.messages.filter((message) => message.role === "tool");
    expect(tools).toHaveLength(1);
    expect(JSON.stringify(result.messages)).not.toContain("prog.1");
    expect(result.usage.toolCalls).toBe(7);
  });

  it("journals each call as it happens: intent, update, result, in program order, attributed, at real times", async () => {
    let clock = Date.parse("2026-03-01T10:00:00.000Z");
    const tick = tool({
      name: "tick",
      description: "x",
      input: z.object({ n: z.number() }),
      execute: ({ n }) => {
        clock += 1000; // each call takes a second of the agent's clock
        return { result: n, update: ContextUpdate.new().append("ticks", n) };
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: "p",
            name: "run_code",
            args: {
              code: "await tools.tick({ n: 1 }); await Promise.all([tools.tick({ n: 2 }), tools.tick({ n: 3 })]); return 'ok';",
            },
          },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [tick, codeMode({ tools: [tick] })], now: () => new Date(clock) });
    const result = await runChecked(agent, "go");
    const nested = result.log.filter((event) => (event.data as { parentToolCallId?: string }).parentToolCallId === "p");
    const second = (offset: number) => new Date(Date.parse("2026-03-01T10:00:00.000Z") + offset * 1000).toISOString();
    expect(nested.map((event) => [event.type, (event.data as { toolCallId: string }).toolCallId, event.at])).toEqual([
      ["tool_call", "p.1", second(0)],
      ["context_update", "p.1", second(1)],
      ["tool_call_result", "p.1", second(1)],
      ["tool_call", "p.2", second(1)],
      ["context_update", "p.2", second(2)],
      ["tool_call_result", "p.2", second(2)],
      ["tool_call", "p.3", second(2)],
      ["context_update", "p.3", second(3)],
      ["tool_call_result", "p.3", second(3)],
    ]);
    // Folded once, by the run (the program's own result carries no update).
    expect(result.deps).toEqual({ ticks: [1, 2, 3] });
    const parent = result.log.filter((event) => (event.data as { toolCallId?: string }).toolCallId === "p");
    expect(parent.map((event) => event.type)).toEqual(["tool_call", "tool_result"]);
  });

  it("fails closed: a call denied by preToolUse or needing approval throws in the program", async () => {
    const code = `
      const out = [];
      for (const call of [() => tools.guarded({}), () => tools.add({ a: 5, b: 5 }), () => tools.add({ a: "x" }), () => tools.add({ a: 1, b: 1 })]) {
        try { out.push(await call()); } catch (error) { out.push(error.name + ": " + error.message); }
      }
      return out;`;
    const hooks = {
      hooks: {
        preToolUse: (call: { args: unknown }) =>
          (call.args as { a?: number }).a === 5 ? { type: "deny" as const, reason: "no fives" } : undefined,
      },
    };
    const { result, toolMessage } = await runProgram(code, hooks);
    expect((toolMessage.result as { result: string[] }).result).toEqual([
      expect.stringMatching(/^ToolError: Tool "guarded" needs approval/),
      "ToolError: Tool call denied: no fives",
      expect.stringMatching(/^ToolError: Invalid arguments for tool "add"/),
      2,
    ]);
    expect(result.deps).toEqual({ sums: [2], seen: [[]] });
    // calls refused before they ran are recorded apart, with no intent: a `tool_call` event counts as a call in usage
    const records = result.log.filter((event) => (event.data as { parentToolCallId?: string }).parentToolCallId);
    expect(records.map((event) => [event.type, (event.data as { toolCallId: string }).toolCallId])).toEqual([
      ["tool_call_refused", "prog.1"],
      ["tool_call_refused", "prog.2"],
      ["tool_call_refused", "prog.3"],
      ["tool_call", "prog.4"],
      ["context_update", "prog.4"],
      ["tool_call_result", "prog.4"],
    ]);
    expect(result.usage.toolCalls).toBe(2);
  });

  it("approves nested calls through the approval handler", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "p", name: "run_code", args: { code: "return await tools.guarded({})" } }] },
      { text: "done" },
    ]);
    const asked: string[] = [];
    const agent = new Agent({
      model,
      tools: [guarded, codeMode({ tools: [guarded] })],
      approvalHandler: (call) => {
        asked.push(call.toolCallId);
        return { type: "approve" };
      },
    });
    await runChecked(agent, "go");
    expect(asked).toEqual(["p.1"]);
    expect((model.requests[1]?.messages.at(-1) as { result: unknown }).result).toEqual({ result: "ran" });
  });

  it("returns a limit breach to the model as the tool's error and keeps running", async () => {
    const { toolMessage, result } = await runProgram("while (true) {}");
    expect(toolMessage.isError).toBe(true);
    expect(toolMessage.result).toMatch(/Code limit "time" exceeded/);
    expect(result.output).toBe("done");
  });

  it("keeps the records of calls made before the program failed", async () => {
    const { toolMessage, result } = await runProgram(
      "await tools.add({ a: 1, b: 2 }); console.log('x'); throw new Error('late')",
    );
    expect(toolMessage.result).toEqual({
      result: null,
      error: expect.stringMatching(/CodeExecutionError: Error: late[\s\S]*x/),
    });
    expect(result.deps.sums).toEqual([3]);
  });

  it("declares the allowed tools in TypeScript in its description", () => {
    const description = codeMode({ tools: [add, echo] }).description;
    expect(description).toContain("declare const tools: {");
    expect(description).toContain(
      "  /** Add two numbers */\n  add(args: {\n    a: number;\n    /** the second one */\n    b: number;\n  }): Promise<unknown>;",
    );
    expect(description).toContain("echo(args: {\n    text: string;\n  }): Promise<unknown>;");
  });

  it("calls every other tool of the run by default", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: "p",
            name: "run_code",
            args: { code: "return [await tools.echo({ text: 'a' }), typeof tools.run_code]" },
          },
        ],
      },
      { text: "done" },
    ]);
    await runChecked(new Agent({ model, tools: [echo, codeMode()] }), "go");
    expect((model.requests[1]?.messages.at(-1) as { result: unknown }).result).toEqual({ result: ["a", "undefined"] });
  });
});

describe("codeMode edges", () => {
  it("stops the program when the run is cancelled", async () => {
    const controller = new AbortController();
    const slow = tool({
      name: "slow",
      description: "x",
      input: z.object({}),
      execute: () => {
        controller.abort(new Error("user cancelled"));
        return "late";
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "p", name: "run_code", args: { code: "await tools.slow({}); while (true) {}" } }] },
    ]);
    const agent = new Agent({ model, tools: [slow, codeMode({ tools: [slow], limits: { timeMs: 20_000 } })] });
    const started = performance.now();
    await expect(agent.run("go", { signal: controller.signal })).rejects.toMatchObject({ code: "cancelled" });
    expect(performance.now() - started).toBeLessThan(5000);
    await vi.waitFor(() => expect(activeSandboxes()).toBe(0));
  });

  it("refuses to call itself and bad limits at definition time", () => {
    expect(() => codeMode({ tools: ["run_code"] })).toThrow(/cannot call itself/);
    expect(() => codeMode({ limits: { timeMs: 0 } })).toThrow(/timeMs/);
    expect(() => codeMode({ limits: { stackBytes: 64 * 1024 * 1024 } })).toThrow(/stackBytes/);
  });
});
