/**
 * Issue 14, §1: "The runner must accept a tool failure that carries a ContextUpdate (a tool can fail
 * and still record what it did); code mode and sub-agents then stop reporting failures as results."
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ToolFailedError } from "../errors/tool-failed-error.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { projectDeps } from "../session/projections.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { runChecked, streamChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { isLogEvent } from "./agent-stream-event.js";

type Deps = { holds?: string[]; charges?: number[] };

/** Reserves, then fails to charge: the hold is real, so the failure records it. */
const charge = tool({
  name: "charge",
  description: "x",
  input: z.object({ amount: z.number() }),
  retries: 0,
  execute: ({ amount }) => {
    if (amount > 100) {
      throw new ToolFailedError(`declined: ${amount} is over the limit; the amount stays reserved`, {
        update: ContextUpdate.new<Deps>().append("holds", `hold-${amount}`).logEvent("bank_audit", { amount }),
      });
    }
    return { result: { charged: amount }, update: ContextUpdate.new<Deps>().append("charges", amount) };
  },
});

type ToolMessage = { role: "tool"; toolCallId: string; result: unknown; isError: boolean };
const toolMessages = (messages: readonly { role: string }[]) =>
  messages.filter((message) => message.role === "tool") as ToolMessage[];

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());

describe.each<[string, () => SessionStore]>([
  ["memory", () => new MemoryStore()],
  ["SQLite", () => sqlite],
])("the runner accepts a tool failure that carries a ContextUpdate (%s store)", (storeName, makeStore) => {
  it("records the update, attributed to the call, then an error result the model sees", async () => {
    const store = makeStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "charge", args: { amount: 500 } }] },
      { text: "sorry" },
    ]);
    const seen: unknown[] = [];
    const agent = new Agent<Deps>({
      model,
      tools: [charge],
      hooks: { postToolUse: (call) => void seen.push([call.toolCallId, call.isError]) },
    });
    const result = await runChecked(agent, "pay", { sessionId: `fail-${storeName}`, store, deps: {} });
    expect(result.output).toBe("sorry");
    const turn = result.log.slice(result.log.findIndex((event) => event.type === "tool_call"));
    expect(turn.slice(0, 4).map((event) => [event.type, event.data])).toEqual([
      ["tool_call", { toolCallId: "c1", toolName: "charge", args: { amount: 500 } }],
      [
        "context_update",
        { toolCallId: "c1", toolName: "charge", operations: [{ op: "append", key: "holds", item: "hold-500" }] },
      ],
      ["bank_audit", { amount: 500 }],
      [
        "tool_result",
        {
          toolCallId: "c1",
          toolName: "charge",
          result: 'Tool "charge" failed: declined: 500 is over the limit; the amount stays reserved',
          isError: true,
        },
      ],
    ]);
    expect(toolMessages(result.messages)[0]).toMatchObject({ isError: true });
    expect(result.deps).toEqual({ holds: ["hold-500"] });
    expect(projectDeps(await store.read(`fail-${storeName}`), {})).toEqual(result.deps);
    expect(seen).toEqual([["c1", true]]);
  });
});

describe("a tool failure with an update", () => {
  it("counts like any failed call: no retry budget spent, no success recorded", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "charge", args: { amount: 500 } }] },
      { toolCalls: [{ id: "c2", name: "charge", args: { amount: 600 } }] },
      { toolCalls: [{ id: "c3", name: "charge", args: { amount: 5 } }] },
      { text: "done" },
    ]);
    // retries: 0 — a budget would end the run at the second failure.
    const result = await runChecked(new Agent<Deps>({ model, tools: [charge] }), "pay", { deps: {} });
    expect(result.output).toBe("done");
    expect(toolMessages(result.messages).map((message) => message.isError)).toEqual([true, true, false]);
    expect(result.deps).toEqual({ holds: ["hold-500", "hold-600"], charges: [5] });
  });

  it("in a parallel turn, updates of failed and succeeded calls are folded in call order", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "charge", args: { amount: 5 } },
          { id: "b", name: "charge", args: { amount: 700 } },
          { id: "c", name: "charge", args: { amount: 6 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent<Deps>({ model, tools: [charge], parallelToolCalls: true });
    const { events, result } = await streamChecked(agent, "pay", { deps: {} });
    expect(result.deps).toEqual({ charges: [5, 6], holds: ["hold-700"] });
    const updates = result.log.filter((event) => event.type === "context_update");
    expect(updates.map((event) => (event.data as { toolCallId: string }).toolCallId)).toEqual(["a", "b", "c"]);
    // The stream shows the failed call's update like any other.
    const streamed = events.flatMap((event) => (isLogEvent(event, "context_update") ? [event.data.toolCallId] : []));
    expect(streamed).toEqual(["a", "b", "c"]);
  });

  it("whose update the reducer refuses says both: the failure, and that nothing was applied", async () => {
    const broken = tool({
      name: "broken",
      description: "x",
      input: z.object({}),
      execute: () => {
        throw new ToolFailedError("gave up", { update: ContextUpdate.new().append("holds", "h") });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: "x", name: "broken", args: {} }] }, { text: "done" }]);
    const result = await runChecked(new Agent({ model, tools: [broken] }), "go", { deps: { holds: "not a list" } });
    expect(toolMessages(result.messages)[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(
        /^Tool "broken" failed: gave up; and Tool "broken" returned an invalid context update/,
      ),
    });
    expect(result.deps).toEqual({ holds: "not a list" });
  });

  it("nested in code mode: its update is recorded under the nested call, and the program sees the failure", async () => {
    const code = `
      await tools.charge({ amount: 1 });
      try { await tools.charge({ amount: 900 }) } catch (error) { return error.message }
      return "not reached";`;
    const model = new ScriptedModel([{ toolCalls: [{ id: "p", name: "run_code", args: { code } }] }, { text: "done" }]);
    const agent = new Agent<Deps>({ model, tools: [charge, codeMode({ tools: [charge] })] });
    const result = await runChecked(agent, "go", { sessionId: "nested-failure", store: new MemoryStore(), deps: {} });
    expect(toolMessages(result.messages)[0]).toMatchObject({
      isError: false,
      result: { result: 'Tool "charge" failed: declined: 900 is over the limit; the amount stays reserved' },
    });
    const nested = result.log
      .filter((event) => (event.data as { parentToolCallId?: string }).parentToolCallId === "p")
      .map((event) => [event.type, (event.data as { toolCallId: string; isError?: boolean }).toolCallId]);
    expect(nested).toEqual([
      ["tool_call", "p.1"],
      ["context_update", "p.1"],
      ["tool_call_result", "p.1"],
      ["tool_call", "p.2"],
      ["context_update", "p.2"],
      ["tool_call_result", "p.2"],
    ]);
    expect(result.deps).toEqual({ charges: [1], holds: ["hold-900"] });
  });
});

describe("code mode and sub-agents stop reporting failures as results", () => {
  it("a program that throws after its nested calls did things is a failed call; what they did stays recorded", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "p", name: "run_code", args: { code: "await tools.charge({ amount: 3 }); throw new Error('oops')" } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent<Deps>({ model, tools: [charge, codeMode({ tools: [charge] })] });
    const result = await runChecked(agent, "go", { deps: {} });
    const [message] = toolMessages(result.messages);
    expect(message).toMatchObject({ toolCallId: "p", isError: true });
    expect(message?.result).toMatch(/^Tool "run_code" failed: Error: oops\nBefore the failure, 1 tool call ran/);
    expect(result.deps).toEqual({ charges: [3] });
  });
});
