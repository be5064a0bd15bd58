import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ApprovalArgumentsError, ApprovalPendingError } from "../errors/index.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { MemoryStore } from "../store/memory-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

/** Every execution of a tool, in order: an effect that ran twice shows up twice. */
function counted() {
  const ran: string[] = [];
  const add = tool({
    name: "add",
    description: "Add two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => {
      ran.push(`add ${a}+${b}`);
      return { result: a + b, update: ContextUpdate.new().append("sums", a + b) };
    },
  });
  const transfer = tool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number().positive() }),
    needsApproval: true,
    execute: ({ amount }) => {
      ran.push(`transfer ${amount}`);
      return { result: { moved: amount }, update: ContextUpdate.new().append("moved", amount) };
    },
  });
  return { ran, tools: [add, transfer, codeMode({ tools: [add, transfer] })] };
}

/** An agent whose model runs `code` once, then answers "done". */
function programAgent(code: string, options: { handler?: ConstructorParameters<typeof Agent>[0]["approvalHandler"] }) {
  const { ran, tools } = counted();
  const model = new ScriptedModel([
    { toolCalls: [{ id: "prog", name: "run_code", args: { code } }] },
    { text: "done" },
  ]);
  const agent = new Agent({
    model,
    tools,
    ...(options.handler === undefined ? {} : { approvalHandler: options.handler }),
  });
  return { agent, model, ran };
}

/** The same agent as another process would build it: its model answers the rest of the run. */
function resumingAgent(tools: ReturnType<typeof counted>["tools"]) {
  const model = new ScriptedModel([{ text: "done" }]);
  return { agent: new Agent({ model, tools }), model };
}

const of = (log: readonly SessionEvent[], type: string) =>
  log.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);
const toolMessage = (model: ScriptedModel) =>
  model.requests.at(-1)?.messages.at(-1) as { role: string; result: unknown; isError: boolean };

const dir = mkdtempSync(join(tmpdir(), "nous-nested-approval-"));
const stores: SqliteStore[] = [];
afterAll(() => {
  for (const store of stores) store.close();
});

describe("nested approvals", () => {
  it("a code-mode program pauses on a nested approval and resumes after decideApproval from a second agent instance on SQLite", async () => {
    const path = join(dir, "sessions.db");
    const first = new SqliteStore({ path });
    stores.push(first);
    const code = `
      const a = await tools.add({ a: 1, b: 2 });
      const paid = await tools.transfer({ amount: 5 });
      const b = await tools.add({ a: paid.moved, b: 1 });
      return [a, paid, b];`;
    const { agent, ran } = programAgent(code, {});
    const paused = await agent.run("pay", { sessionId: "pay", store: first }).catch((error: unknown) => error);

    // Paused, not failed: same error and status as a top-level pause; the run_code call stays open.
    expect(paused).toBeInstanceOf(ApprovalPendingError);
    expect((paused as ApprovalPendingError).pending).toEqual([
      { toolCallId: "prog.2", toolName: "transfer", args: { amount: 5 }, parentToolCallId: "prog" },
    ]);
    expect(ran).toEqual(["add 1+2"]);
    const log = await first.read("pay");
    expect(log.at(-1)).toMatchObject({
      type: "run_paused",
      data: {
        pending: [{ toolCallId: "prog.2", toolName: "transfer", args: { amount: 5 }, parentToolCallId: "prog" }],
      },
    });
    expect(log.at(-2)?.type).toBe("approval_requested");
    expect(log.at(-2)?.data).toEqual({
      toolCallId: "prog.2",
      toolName: "transfer",
      args: { amount: 5 },
      parentToolCallId: "prog",
    });
    expect(of(log, "run_failed")).toEqual([]);
    expect(of(log, "tool_result")).toEqual([]);
    expect((await first.get("pay"))?.status).toBe("awaiting_approval");

    // Another process: its own store connection and agent instance.
    const second = new SqliteStore({ path });
    stores.push(second);
    const [approval] = await listPendingApprovals(second);
    expect(approval).toMatchObject({
      sessionId: "pay",
      toolCallId: "prog.2",
      toolName: "transfer",
      parentToolCallId: "prog",
    });
    expect(approval?.path).toBeUndefined();
    if (approval === undefined) throw new Error("no pending approval");
    const { ran: ranAfter, tools } = counted();
    const other = resumingAgent(tools);
    // Edited arguments are checked against the tool's schema, exactly as for a top-level call.
    await expect(
      decideApproval(second, approval, { type: "edit", args: { amount: -1 } }, { agent: other.agent }),
    ).rejects.toThrow(ApprovalArgumentsError);
    await decideApproval(second, approval, { type: "edit", args: { amount: 3 } }, { agent: other.agent });
    expect(await listPendingApprovals(second)).toEqual([]);

    const result = await other.agent.resume("pay", { store: second });
    expect(result.output).toBe("done");
    // Nothing ran twice: the first add replayed from the log, the decided call ran with the decided arguments.
    expect(ranAfter).toEqual(["transfer 3", "add 3+1"]);
    expect(toolMessage(other.model).result).toEqual({ result: [3, { moved: 3 }, 4] });
    expect(result.deps).toEqual({ sums: [3, 4], moved: [3] });
    checkProjections(result, {});

    const stored = await second.read("pay");
    expect(of(stored, "approval_decided")).toEqual([{ toolCallId: "prog.2", approved: true, args: { amount: 3 } }]);
    const intent = of(stored, "tool_call").find((data) => data.toolCallId === "prog.2");
    expect(intent).toMatchObject({ args: { amount: 3 }, requestedArgs: { amount: 5 }, parentToolCallId: "prog" });
    expect((await second.get("pay"))?.status).toBe("completed");
  });

  it("records a rejected nested approval as approval_decided (approved: false), and the program sees the refusal", async () => {
    const store = new MemoryStore();
    const code = `
      try { return await tools.transfer({ amount: 500 }); }
      catch (error) { return "refused: " + error.message; }`;
    const { agent, ran } = programAgent(code, {});
    await expect(agent.run("pay", { sessionId: "big", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "reject", reason: "too much" });

    const { ran: ranAfter, tools } = counted();
    const other = resumingAgent(tools);
    const result = await other.agent.resume("big", { store });
    expect(result.output).toBe("done");
    expect([...ran, ...ranAfter]).toEqual([]);
    expect(toolMessage(other.model).result).toEqual({
      result: "refused: The user rejected this tool call: too much",
    });
    const log = await store.read("big");
    expect(of(log, "approval_decided")).toEqual([{ toolCallId: "prog.1", approved: false, reason: "too much" }]);
    expect(of(log, "tool_call_refused")).toEqual([
      expect.objectContaining({
        toolCallId: "prog.1",
        parentToolCallId: "prog",
        error: "The user rejected this tool call: too much",
      }),
    ]);
    expect(of(log, "tool_call").filter((data) => data.toolCallId === "prog.1")).toEqual([]);
    checkProjections(result, {});
  });

  it("records both approval_requested and approval_decided when an inline approval handler decides a nested call", async () => {
    const asked: unknown[] = [];
    const { agent, ran } = programAgent("return await tools.transfer({ amount: 5 })", {
      handler: (call) => {
        asked.push(call);
        return { type: "edit", args: { amount: 4 } };
      },
    });
    const store = new MemoryStore();
    const result = await agent.run("pay", { sessionId: "inline", store });
    expect(result.output).toBe("done");
    expect(asked).toEqual([
      { toolCallId: "prog.1", toolName: "transfer", args: { amount: 5 }, parentToolCallId: "prog" },
    ]);
    expect(ran).toEqual(["transfer 4"]);
    const nested = result.log
      .filter((event) => (event.data as { toolCallId?: string }).toolCallId === "prog.1")
      .map((event) => [event.type, event.data]);
    expect(nested).toEqual([
      [
        "approval_requested",
        { toolCallId: "prog.1", toolName: "transfer", args: { amount: 5 }, parentToolCallId: "prog" },
      ],
      ["approval_decided", { toolCallId: "prog.1", approved: true, args: { amount: 4 } }],
      [
        "tool_call",
        {
          toolCallId: "prog.1",
          toolName: "transfer",
          parentToolCallId: "prog",
          args: { amount: 4 },
          requestedArgs: { amount: 5 },
        },
      ],
      ["context_update", expect.objectContaining({ toolCallId: "prog.1", parentToolCallId: "prog" })],
      ["tool_call_result", expect.objectContaining({ toolCallId: "prog.1", result: { moved: 4 } })],
    ]);
    // Both are durable, in the order they happened.
    expect((await store.read("inline")).map((event) => event.type)).toEqual(result.log.map((event) => event.type));
    checkProjections(result, {});
  });

  it("runs no nested effect twice across pauses: two approvals in turn, with Promise.all between them", async () => {
    const store = new MemoryStore();
    const code = `
      const first = await tools.transfer({ amount: 1 });
      const sums = await Promise.all([tools.add({ a: 1, b: 1 }), tools.add({ a: 2, b: 2 }), tools.add({ a: 3, b: 3 })]);
      const second = await tools.transfer({ amount: 2 });
      return { first, sums, second, last: await tools.add({ a: 9, b: 9 }) };`;
    const { agent, ran } = programAgent(code, {});
    const executions = [ran];
    await expect(agent.run("go", { sessionId: "twice", store })).rejects.toThrow(ApprovalPendingError);
    let result: Awaited<ReturnType<typeof agent.resume>> | undefined;
    let resumes = 0;
    while (result === undefined) {
      const pending = await listPendingApprovals(store);
      expect(pending).toHaveLength(1);
      for (const approval of pending) await decideApproval(store, approval, { type: "approve" });
      const { ran: ranNow, tools } = counted();
      executions.push(ranNow);
      const other = resumingAgent(tools);
      resumes += 1;
      result = await other.agent.resume("twice", { store }).catch((error: unknown) => {
        if (!(error instanceof ApprovalPendingError)) throw error;
        return undefined;
      });
    }
    expect(resumes).toBe(2);
    expect(executions).toEqual([[], ["transfer 1", "add 1+1", "add 2+2", "add 3+3"], ["transfer 2", "add 9+9"]]);
    expect(result.deps).toEqual({ moved: [1, 2], sums: [2, 4, 6, 18] });
    const log = await store.read("twice");
    expect(of(log, "approval_requested").map((data) => data.toolCallId)).toEqual(["prog.1", "prog.5"]);
    expect(of(log, "run_resumed")).toHaveLength(2);
    checkProjections(result, {});
  });

  it("resumes a dispatching tool that is not replayable, also after a resume before the decision paused it again", async () => {
    const build = (resumed: boolean) => {
      const { ran, tools } = counted();
      // Dispatches add, then transfer, through the seam; it is neither replayable nor idempotent.
      const dispatch = tool({
        name: "dispatch",
        description: "x",
        input: z.object({}),
        execute: async (_args, context) => {
          const call = (toolName: string, args: unknown, n: number) =>
            context.seam?.callTool({
              toolName,
              args,
              parentToolCallId: context.toolCallId ?? "",
              toolCallId: `${context.toolCallId}.${n}`,
            });
          const sum = await call("add", { a: 1, b: 1 }, 1);
          const paid = await call("transfer", { amount: 2 }, 2);
          return [sum?.result, paid?.result];
        },
      });
      const steps = [{ toolCalls: [{ id: "d", name: "dispatch", args: {} }] }, { text: "done" }];
      const model = new ScriptedModel(resumed ? steps.slice(1) : steps);
      return { agent: new Agent({ model, tools: [dispatch, ...tools] }), ran, model };
    };
    const store = new MemoryStore();
    const first = build(false);
    await expect(first.agent.run("go", { sessionId: "dispatch", store })).rejects.toThrow(ApprovalPendingError);
    const early = build(true);
    await expect(early.agent.resume("dispatch", { store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const last = build(true);
    const result = await last.agent.resume("dispatch", { store });
    expect(result.output).toBe("done");
    expect([first.ran, early.ran, last.ran]).toEqual([["add 1+1"], [], ["transfer 2"]]);
    expect(toolMessage(last.model).result).toEqual([2, { moved: 2 }]);
    expect(of(result.log, "approval_requested")).toHaveLength(1);
    checkProjections(result, {});
  });

  it("pauses once for all the approvals a tool's concurrent nested calls wait on", async () => {
    const build = (resumed: boolean) => {
      const { ran, tools } = counted();
      const both = tool({
        name: "both",
        description: "x",
        input: z.object({}),
        execute: async (_args, context) =>
          Promise.all(
            [1, 2].map(async (amount) => {
              const outcome = await context.seam?.callTool({
                toolName: "transfer",
                args: { amount },
                parentToolCallId: context.toolCallId ?? "",
                toolCallId: `${context.toolCallId}.${amount}`,
              });
              return outcome?.result;
            }),
          ),
      });
      const steps = [{ toolCalls: [{ id: "b", name: "both", args: {} }] }, { text: "done" }];
      return {
        agent: new Agent({ model: new ScriptedModel(resumed ? steps.slice(1) : steps), tools: [both, ...tools] }),
        ran,
      };
    };
    const store = new MemoryStore();
    const paused = await build(false)
      .agent.run("go", { sessionId: "both", store })
      .catch((error: unknown) => error);
    expect((paused as ApprovalPendingError).pending.map((call) => call.toolCallId).sort()).toEqual(["b.1", "b.2"]);
    const pending = await listPendingApprovals(store);
    expect(pending.map((approval) => approval.toolCallId).sort()).toEqual(["b.1", "b.2"]);
    for (const approval of pending) await decideApproval(store, approval, { type: "approve" });
    const last = build(true);
    const result = await last.agent.resume("both", { store });
    expect(result.output).toBe("done");
    expect([...last.ran].sort()).toEqual(["transfer 1", "transfer 2"]);
    checkProjections(result, {});
  });

  it("keeps the results of the turn's other parallel calls when a nested approval pauses the run", async () => {
    const store = new MemoryStore();
    const { ran, tools } = counted();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "prog", name: "run_code", args: { code: "return await tools.transfer({ amount: 7 })" } },
          { id: "side", name: "add", args: { a: 20, b: 22 } },
        ],
      },
    ]);
    const agent = new Agent({ model, tools, parallelToolCalls: true });
    await expect(agent.run("go", { sessionId: "side", store })).rejects.toThrow(ApprovalPendingError);
    expect(ran).toEqual(["add 20+22"]);
    const log = await store.read("side");
    expect(of(log, "tool_result").map((data) => [data.toolCallId, data.result])).toEqual([["side", 42]]);

    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const next = counted();
    const other = resumingAgent(next.tools);
    const result = await other.agent.resume("side", { store });
    expect(result.output).toBe("done");
    expect(next.ran).toEqual(["transfer 7"]);
    checkProjections(result, {});
  });
});
