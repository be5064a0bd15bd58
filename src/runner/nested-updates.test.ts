/**
 * Issue 14, §1: "Each nested call's update must be its own event, attributed to the nested call id,
 * in program order" — through code mode and sub-agents, on a memory and a SQLite store, and after a
 * resume.
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps } from "../session/projections.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

type Deps = { list?: number[]; notes?: string[] };

/** Appends `n` and reports what it saw, so each call shows the deps the calls before it left. */
const put = tool({
  name: "put",
  description: "x",
  input: z.object({ n: z.number() }),
  idempotent: true,
  execute: ({ n }, context) => ({
    result: { n, saw: [...((context.deps as Deps).list ?? [])] },
    update: ContextUpdate.new().append("list", n).logEvent("put_audit", { n }),
  }),
});

/** Where each event of a call came from: `[type, toolCallId, parentToolCallId]`. */
function attribution(log: readonly SessionEvent[]): [string, string | undefined, string | undefined][] {
  return log
    .filter((event) => ["tool_call", "context_update", "tool_call_result", "tool_result"].includes(event.type))
    .map((event) => {
      const data = event.data as { toolCallId?: string; parentToolCallId?: string };
      return [event.type, data.toolCallId, data.parentToolCallId];
    });
}

const program = `
  const first = await tools.put({ n: 1 });
  const second = await tools.put({ n: 2 });
  const third = await tools.put({ n: 3 });
  const both = await Promise.all([tools.put({ n: 4 }), tools.put({ n: 5 })]);
  return [first, second, third, ...both].map((call) => call.saw.length);`;

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());

describe.each<[string, () => SessionStore]>([
  ["memory", () => new MemoryStore()],
  ["SQLite", () => sqlite],
])("each nested call's update is its own event (%s store)", (storeName, makeStore) => {
  it("attributed to the nested call id, in program order, right after that call's result and before later calls", async () => {
    const store = makeStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "p", name: "run_code", args: { code: program } }] },
      { text: "done" },
    ]);
    const agent = new Agent<Deps>({ model, tools: [put, codeMode({ tools: [put] })] });
    const result = await runChecked(agent, "go", { sessionId: `updates-${storeName}`, store, deps: {} });

    const nested = (id: string): [string, string | undefined, string | undefined][] => [
      ["tool_call", id, "p"],
      ["context_update", id, "p"],
      ["tool_call_result", id, "p"],
    ];
    expect(attribution(result.log)).toEqual([
      ["tool_call", "p", undefined],
      ...nested("p.1"),
      ...nested("p.2"),
      ...nested("p.3"),
      ...nested("p.4"),
      ...nested("p.5"),
      ["tool_result", "p", undefined],
    ]);
    const updates = result.log.filter((event) => event.type === "context_update");
    expect(updates.map((event) => event.data)).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({
        toolCallId: `p.${n}`,
        toolName: "put",
        parentToolCallId: "p",
        operations: [{ op: "append", key: "list", item: n }],
      })),
    );
    // Each update's log event follows its context_update, before that call's result.
    const types = result.log.map((event) => event.type);
    for (const [index, event] of updates.entries()) {
      expect(types[result.log.indexOf(event) + 1], `after p.${index + 1}'s update`).toBe("put_audit");
    }
    // The deps a later nested call sees include every earlier one's update (Promise.all included).
    const toolMessage = result.messages.find((message) => message.role === "tool") as { result: unknown };
    expect(toolMessage.result).toEqual({ result: [0, 1, 2, 3, 4] });
    expect(result.deps).toEqual({ list: [1, 2, 3, 4, 5] });
    expect(projectDeps(result.log, {})).toEqual(result.deps);
    const stored = await store.read(`updates-${storeName}`);
    expect(projectDeps(stored, {})).toEqual(result.deps);
    expect(stored.map((event) => [event.type, event.data])).toEqual(
      result.log.map((event) => [event.type, event.data]),
    );
  });

  it("two programs in one parallel turn: each nested update attributed to its own call, deps = projectDeps(log)", async () => {
    const store = makeStore();
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: "a",
            name: "run_code",
            args: { code: "await tools.put({ n: 1 }); await tools.put({ n: 2 }); return 1;" },
          },
          { id: "b", name: "run_code", args: { code: "await tools.put({ n: 10 }); return 2;" } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent<Deps>({
      model,
      tools: [put, codeMode({ tools: [put] })],
      parallelToolCalls: true,
    });
    const result = await runChecked(agent, "go", { sessionId: `parallel-${storeName}`, store, deps: {} });
    const updates = result.log
      .filter((event) => event.type === "context_update")
      .map((event) => event.data as { toolCallId: string; parentToolCallId: string; operations: { item: number }[] });
    expect(updates.map((data) => [data.toolCallId, data.parentToolCallId, data.operations[0]?.item]).sort()).toEqual([
      ["a.1", "a", 1],
      ["a.2", "a", 2],
      ["b.1", "b", 10],
    ]);
    // Within one program, program order.
    expect(updates.filter((data) => data.parentToolCallId === "a").map((data) => data.toolCallId)).toEqual([
      "a.1",
      "a.2",
    ]);
    expect([...(result.deps.list ?? [])].sort((x, y) => x - y)).toEqual([1, 2, 10]);
    expect(projectDeps(result.log, {})).toEqual(result.deps);
  });

  it("a sub-agent called from a program records its update under the nested call, also when it fails", async () => {
    const store = makeStore();
    const childModel = new ScriptedModel([{ toolCalls: [{ id: "k1", name: "put", args: { n: 7 } }] }]);
    const child = new Agent({ name: "kid", model: childModel, tools: [put], maxIterations: 1 });
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: "p",
            name: "run_code",
            args: {
              code: "await tools.put({ n: 1 }); try { await tools.kid({ prompt: 'x' }) } catch (e) { await tools.put({ n: 2 }); return e.message; }",
            },
          },
        ],
      },
      { text: "done" },
    ]);
    const kid = agentAsTool<Deps, string, Deps>(child, { name: "kid", description: "x" });
    const agent = new Agent<Deps>({ model, tools: [put, kid, codeMode({ tools: [put, kid] })] });
    const result = await runChecked(agent, "go", { sessionId: `kid-${storeName}`, store, deps: {} });

    const rows = result.log
      .filter((event) => (event.data as { toolCallId?: string }).toolCallId?.startsWith("p.") ?? false)
      .map((event) => [event.type, (event.data as { toolCallId: string }).toolCallId]);
    expect(rows).toEqual([
      ["tool_call", "p.1"],
      ["context_update", "p.1"],
      ["tool_call_result", "p.1"],
      ["tool_call", "p.2"],
      ["subagent_started", "p.2"],
      ["subagent_failed", "p.2"],
      ["tool_call_result", "p.2"],
      ["tool_call", "p.3"],
      ["context_update", "p.3"],
      ["tool_call_result", "p.3"],
    ]);
    const failed = result.log.find(
      (event) => event.type === "tool_call_result" && (event.data as { toolCallId: string }).toolCallId === "p.2",
    );
    expect(failed?.data).toMatchObject({ isError: true, result: expect.stringMatching(/Sub-agent "kid" failed/) });
    expect(result.deps).toEqual({ list: [1, 2] });
  });
});

describe("the parent's own update", () => {
  it("stays attributed to the parent and comes after its nested calls", async () => {
    const batch = tool({
      name: "batch",
      description: "x",
      input: z.object({}),
      replayable: true,
      execute: async (_args, context) => {
        for (const n of [1, 2]) {
          await context.seam?.callTool({
            toolName: "put",
            args: { n },
            parentToolCallId: context.toolCallId ?? "",
            toolCallId: `${context.toolCallId}.${n}`,
          });
        }
        return { result: "ok", update: ContextUpdate.new<Deps>().append("notes", "batched") };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: "b", name: "batch", args: {} }] }, { text: "done" }]);
    const result = await runChecked(new Agent<Deps>({ model, tools: [put, batch] }), "go", { deps: {} });
    const updates = result.log
      .filter((event) => event.type === "context_update")
      .map((event) => event.data as { toolCallId: string; parentToolCallId?: string });
    expect(updates.map((data) => [data.toolCallId, data.parentToolCallId])).toEqual([
      ["b.1", "b"],
      ["b.2", "b"],
      ["b", undefined],
    ]);
    expect(result.deps).toEqual({ list: [1, 2], notes: ["batched"] });
  });
});

describe("nested updates after a resume", () => {
  it("are folded once: recorded ones come from the log, the re-run call's is its own event", async () => {
    let crashed = false;
    let crashes = 0;
    const inner = new MemoryStore();
    // A store that stops accepting appends once nested call p.2 has had its effect (a crash there).
    const store = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "append") {
          return (...args: Parameters<MemoryStore["append"]>) => {
            if (crashed) return Promise.reject(new Error("simulated crash"));
            return target.append(...args);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as SessionStore;
    const crashAfter = tool({
      name: "put",
      description: "x",
      input: z.object({ n: z.number() }),
      idempotent: true,
      execute: ({ n }, context) => {
        if (context.toolCallId === "p.2" && crashes++ === 0) crashed = true;
        return { result: n, update: ContextUpdate.new().append("list", n) };
      },
    });
    const steps = () =>
      new ScriptedModel(
        Array.from(
          { length: 3 },
          () => (request: { messages: readonly { role: string }[] }) =>
            request.messages.some((message) => message.role === "tool")
              ? { text: "done" }
              : {
                  toolCalls: [
                    {
                      id: "p",
                      name: "run_code",
                      args: { code: "for (const n of [1, 2, 3]) await tools.put({ n }); return 'ok';" },
                    },
                  ],
                },
        ),
      );
    const agent = () => new Agent<Deps>({ model: steps(), tools: [crashAfter, codeMode({ tools: [crashAfter] })] });
    await expect(agent().run("go", { sessionId: "r", store, deps: {} })).rejects.toThrow();
    crashed = false;
    const result = await agent().resume("r", { store });
    expect(result.deps).toEqual({ list: [1, 2, 3] });
    expect(projectDeps(result.log, {})).toEqual(result.deps);
    const updates = result.log
      .filter((event) => event.type === "context_update")
      .map((event) => (event.data as { toolCallId: string }).toolCallId);
    expect(updates).toEqual(["p.1", "p.2", "p.3"]);
  });
});
