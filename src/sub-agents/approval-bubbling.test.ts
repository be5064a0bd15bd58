import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ApprovalPendingError } from "../errors/index.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { agentAsTool } from "./sub-agent.js";
import { u, usage } from "./test-support/test-fixtures.js";

/** A transfer that needs approval, counting its executions. */
function transferTool(ran: string[]) {
  return tool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number().positive() }),
    needsApproval: true,
    execute: ({ amount }) => {
      ran.push(`transfer ${amount}`);
      return { moved: amount };
    },
  });
}

/** The steps of a scripted model: all of them for a new run, the rest (after the pause) for a resumed one. */
function script<T>(resumed: boolean, steps: readonly T[]): T[] {
  return resumed ? steps.slice(1) : [...steps];
}

/**
 * root "lead" → (call r1) "payer" → transfer (call t1), needing approval. Each agent has its own
 * scripted model with pinned usage; `resumed` builds them as a second process would, to resume.
 */
function twoLevels(ran: string[], resumed = false) {
  const transfer = transferTool(ran);
  const payer = new Agent({
    name: "payer",
    model: new ScriptedModel(
      script(resumed, [
        { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }], usage: u(3, 2) },
        { text: "paid 5", usage: u(4, 1) },
      ]),
    ),
    tools: [transfer],
  });
  const pay = agentAsTool(payer, { name: "pay", description: "Pay" });
  const leadModel = new ScriptedModel(
    script(resumed, [
      { toolCalls: [{ id: "r1", name: "pay", args: { prompt: "pay 5" } }], usage: u(10, 5) },
      { text: "done", usage: u(20, 5) },
    ]),
  );
  const lead = new Agent({ name: "lead", model: leadModel, tools: [pay, transfer] });
  return { lead, leadModel };
}

const of = (log: readonly SessionEvent[], type: string) =>
  log.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());

describe.each<[string, () => SessionStore]>([
  ["MemoryStore", () => new MemoryStore()],
  ["SqliteStore", () => sqlite],
])("sub-agent approvals with a %s", (storeName, makeStore) => {
  it("bubbles a sub-agent's approval up to the root: listed with its path; resume completes the child, then the parent", async () => {
    const store = makeStore();
    const root = `lead-${storeName}`;
    const child = `${root}/r1`;
    const ran: string[] = [];
    const first = twoLevels(ran);
    const paused = await first.lead.run("go", { sessionId: root, store }).catch((error: unknown) => error);

    // The root pauses with the child's request, which carries its way down from the root.
    expect(paused).toBeInstanceOf(ApprovalPendingError);
    const path = [
      { sessionId: root, toolCallId: "r1" },
      { sessionId: child, toolCallId: "t1" },
    ];
    expect((paused as ApprovalPendingError).pending).toEqual([
      { toolCallId: "t1", toolName: "transfer", args: { amount: 5 }, sessionId: child, path },
    ]);
    expect(ran).toEqual([]);
    const rootLog = await store.read(root);
    expect(rootLog.at(-2)?.type).toBe("subagent_paused");
    expect(rootLog.at(-2)?.data).toMatchObject({ toolCallId: "r1", childSessionId: child, agent: "payer" });
    // The pause itself: the pending request with its way down from the root.
    expect(rootLog.at(-1)).toMatchObject({
      type: "run_paused",
      data: { pending: [{ toolCallId: "t1", toolName: "transfer", args: { amount: 5 }, sessionId: child, path }] },
    });
    expect((await store.read(child)).at(-1)).toMatchObject({
      type: "run_paused",
      data: { pending: [{ toolCallId: "t1", toolName: "transfer", args: { amount: 5 } }] },
    });
    expect(of(rootLog, "tool_result")).toEqual([]);
    expect(of(rootLog, "run_failed")).toEqual([]);
    // Both sessions show as awaiting approval; the request is listed once, the child's, with its path.
    expect((await store.get(root))?.status).toBe("awaiting_approval");
    expect((await store.get(child))?.status).toBe("awaiting_approval");
    const listed = (await store.list({ status: "awaiting_approval" })).sessions.map((summary) => summary.sessionId);
    expect(listed.sort()).toEqual([root, child]);
    const pending = (await listPendingApprovals(store)).filter((item) => item.path?.[0]?.sessionId === root);
    expect(pending).toEqual([
      expect.objectContaining({ sessionId: child, toolCallId: "t1", toolName: "transfer", path }),
    ]);

    const [approval] = pending;
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    // Another process: fresh agents, whose models answer what is left of each run.
    const ranAfter: string[] = [];
    const second = twoLevels(ranAfter, true);
    const result = await second.lead.resume(root, { store });

    expect(result.output).toBe("done");
    expect(ranAfter).toEqual(["transfer 5"]);
    expect((second.leadModel.requests.at(-1)?.messages.at(-1) as { result: unknown }).result).toBe("paid 5");
    const childLog = await store.read(child);
    expect(of(childLog, "run_started")).toHaveLength(1);
    expect(of(childLog, "run_resumed")).toHaveLength(1);
    expect(childLog.at(-1)?.type).toBe("run_completed");
    const [paused1] = of(await store.read(root), "subagent_paused");
    const [completed] = of(result.log, "subagent_completed");
    expect(completed).toMatchObject({ childSessionId: child, childRunId: paused1?.childRunId, output: "paid 5" });
    // The child's usage counts once: its two requests (one before the pause, one after) and its transfer.
    // The root's `pay` counts each time it ran (its intent, then its re-run on resume), as every re-run does.
    const childUsage = usage({ requests: 2, input: 7, output: 3, toolCalls: 1 });
    expect(completed?.usage).toEqual(childUsage);
    expect(result.usage).toEqual(usage({ requests: 2 + 2, input: 30 + 7, output: 10 + 3, toolCalls: 2 + 1 }));
    expect((await store.get(root))?.status).toBe("completed");
    expect((await store.get(child))?.status).toBe("completed");
    checkProjections(result, {});
  });
});

describe("sub-agent approvals, resumed", () => {
  it("counts a sub-agent that completed before the pause once, from the log, when the root resumes", async () => {
    const build = (ran: string[], resumed = false) => {
      const transfer = transferTool(ran);
      const lookup = tool({
        name: "lookup",
        description: "x",
        input: z.object({ q: z.string() }),
        execute: () => "ok",
      });
      const researcher = new Agent({
        name: "researcher",
        model: new ScriptedModel([{ text: "researched", usage: u(6, 6) }]),
        tools: [lookup],
      });
      const payer = new Agent({
        name: "payer",
        model: new ScriptedModel(
          script(resumed, [
            { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 1 } }], usage: u(3, 2) },
            { text: "paid", usage: u(4, 1) },
          ]),
        ),
        tools: [transfer],
      });
      const steps = [
        { toolCalls: [{ id: "q1", name: "research", args: { prompt: "look" } }], usage: u(1, 1) },
        { toolCalls: [{ id: "r1", name: "pay", args: { prompt: "pay" } }], usage: u(1, 1) },
        { text: "done", usage: u(1, 1) },
      ];
      const model = new ScriptedModel(resumed ? steps.slice(2) : steps);
      const tools = [
        agentAsTool(researcher, { name: "research", description: "x" }),
        agentAsTool(payer, { name: "pay", description: "x" }),
        transfer,
        lookup,
      ];
      return new Agent({ name: "lead", model, tools });
    };
    const store = new MemoryStore();
    await expect(build([]).run("go", { sessionId: "both", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const ran: string[] = [];
    const result = await build(ran, true).resume("both", { store });
    expect(result.output).toBe("done");
    expect(ran).toEqual(["transfer 1"]);
    // lead: 3 requests (1+1 each), its research and pay calls (pay twice: ran, then again on resume);
    // researcher: 1 request (6+6); payer: 2 requests (3+2, 4+1) and its transfer.
    expect(result.usage).toEqual(usage({ requests: 3 + 1 + 2, input: 3 + 6 + 7, output: 3 + 6 + 3, toolCalls: 3 + 1 }));
  });

  it("takes the child's recorded result when the child was resumed on its own before the root", async () => {
    const store = new MemoryStore();
    await expect(twoLevels([]).lead.run("go", { sessionId: "solo", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const ran: string[] = [];
    const payer = new Agent({
      name: "payer",
      model: new ScriptedModel([{ text: "paid 5", usage: u(4, 1) }]),
      tools: [transferTool(ran)],
    });
    expect((await payer.resume("solo/r1", { store })).output).toBe("paid 5");
    // The root's model still has its turn; no child runs again, nothing is paid twice.
    const second = twoLevels(ran, true);
    const result = await second.lead.resume("solo", { store });
    expect(result.output).toBe("done");
    expect(ran).toEqual(["transfer 5"]);
    expect(of(await store.read("solo/r1"), "run_resumed")).toHaveLength(1);
    expect((second.leadModel.requests.at(-1)?.messages.at(-1) as { result: unknown }).result).toBe("paid 5");
    expect(of(result.log, "subagent_completed")[0]?.usage).toEqual(
      usage({ requests: 2, input: 7, output: 3, toolCalls: 1 }),
    );
  });
});

describe("sub-agent approvals, deeper", () => {
  it("bubbles a grandchild's approval through two sub-agents; resume completes grandchild, child, then root", async () => {
    const build = (ran: string[], resumed = false) => {
      const transfer = transferTool(ran);
      const leaf = new Agent({
        name: "leaf",
        model: new ScriptedModel(
          script(resumed, [
            { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 2 } }], usage: u(1, 1) },
            { text: "leaf paid", usage: u(1, 1) },
          ]),
        ),
        tools: [transfer],
      });
      const payLeaf = agentAsTool(leaf, { name: "pay_leaf", description: "x" });
      const middle = new Agent({
        name: "middle",
        model: new ScriptedModel(
          script(resumed, [
            { toolCalls: [{ id: "m1", name: "pay_leaf", args: { prompt: "pay 2" } }], usage: u(2, 2) },
            { text: "middle done", usage: u(2, 2) },
          ]),
        ),
        tools: [payLeaf, transfer],
      });
      const payMiddle = agentAsTool(middle, { name: "pay_middle", description: "x" });
      const model = new ScriptedModel(
        script(resumed, [
          { toolCalls: [{ id: "r1", name: "pay_middle", args: { prompt: "go" } }], usage: u(5, 5) },
          { text: "root done", usage: u(5, 5) },
        ]),
      );
      return new Agent({ name: "root", model, tools: [payMiddle, payLeaf, transfer] });
    };
    const store = new MemoryStore();
    const ran: string[] = [];
    await expect(build(ran).run("go", { sessionId: "deep", store })).rejects.toThrow(ApprovalPendingError);
    const [approval, ...others] = await listPendingApprovals(store);
    expect(others).toEqual([]);
    expect(approval).toMatchObject({
      sessionId: "deep/r1/m1",
      toolCallId: "t1",
      path: [
        { sessionId: "deep", toolCallId: "r1" },
        { sessionId: "deep/r1", toolCallId: "m1" },
        { sessionId: "deep/r1/m1", toolCallId: "t1" },
      ],
    });
    for (const session of ["deep", "deep/r1", "deep/r1/m1"]) {
      expect((await store.get(session))?.status, session).toBe("awaiting_approval");
    }
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const ranAfter: string[] = [];
    const result = await build(ranAfter, true).resume("deep", { store });
    expect(result.output).toBe("root done");
    expect([...ran, ...ranAfter]).toEqual(["transfer 2"]);
    for (const session of ["deep", "deep/r1", "deep/r1/m1"]) {
      expect((await store.get(session))?.status, session).toBe("completed");
      expect(of(await store.read(session), "run_started"), session).toHaveLength(1);
    }
    // Each level's usage once: leaf 2 requests + transfer, middle 2 + pay_leaf, root 2 + pay_middle (each
    // delegating call twice: it ran, paused, and ran again on resume).
    expect(result.usage).toEqual(usage({ requests: 6, input: 2 + 4 + 10, output: 2 + 4 + 10, toolCalls: 1 + 2 + 2 }));
    checkProjections(result, {});
  });

  it("pauses a code-mode program whose sub-agent waits for approval, and resumes the child when the program runs again", async () => {
    const build = (ran: string[], adds: string[], resumed = false) => {
      const transfer = transferTool(ran);
      const add = tool({
        name: "add",
        description: "x",
        input: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => {
          adds.push(`${a}+${b}`);
          return a + b;
        },
      });
      const payer = new Agent({
        name: "payer",
        model: new ScriptedModel(
          script(resumed, [{ toolCalls: [{ id: "t1", name: "transfer", args: { amount: 9 } }] }, { text: "paid 9" }]),
        ),
        tools: [transfer],
      });
      const pay = agentAsTool(payer, { name: "pay", description: "x" });
      const code = `const a = await tools.add({ a: 1, b: 1 }); const paid = await tools.pay({ prompt: "pay" }); return [a, paid];`;
      const model = new ScriptedModel(
        script(resumed, [{ toolCalls: [{ id: "prog", name: "run_code", args: { code } }] }, { text: "done" }]),
      );
      return {
        agent: new Agent({ model, tools: [add, pay, transfer, codeMode({ tools: [add, pay] })] }),
        model,
      };
    };
    const store = new MemoryStore();
    const ran: string[] = [];
    const adds: string[] = [];
    await expect(build(ran, adds).agent.run("go", { sessionId: "cm", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    expect(approval).toMatchObject({
      sessionId: "cm/prog.2",
      path: [
        { sessionId: "cm", toolCallId: "prog.2" },
        { sessionId: "cm/prog.2", toolCallId: "t1" },
      ],
    });
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const after = build(ran, adds, true);
    const result = await after.agent.resume("cm", { store });
    expect(result.output).toBe("done");
    expect(ran).toEqual(["transfer 9"]);
    expect(adds).toEqual(["1+1"]);
    expect((after.model.requests.at(-1)?.messages.at(-1) as { result: unknown }).result).toEqual({
      result: [2, "paid 9"],
    });
    checkProjections(result, {});
  });
});
