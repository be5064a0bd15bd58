import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalMismatchError, decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ContextUpdate } from "../context/context-update.js";
import { ApprovalPendingError, SessionStateError, ToolInDoubtError } from "../errors/run-errors.js";
import { SessionConflictError } from "../errors/store-errors.js";
import { ReplayModel } from "../models/replay-model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { RunContext } from "../session/run-context.js";
import { MemoryStore } from "../store/memory-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

/** A live dependency (a client): a class instance, so it is never persisted. */
class Db {
  readonly writes: string[] = [];
}

type Deps = { todos: string[]; db: Db };

const addTodo = tool({
  name: "add_todo",
  description: "x",
  input: z.object({ text: z.string() }),
  execute: ({ text }, context: RunContext<Deps>) => {
    context.deps.db.writes.push(text); // a live dependency: never persisted
    return { result: "added", update: ContextUpdate.new<Deps>().append("todos", text) };
  },
});

describe("sessions", () => {
  it("commits as the run goes, and a continued session rebuilds state from its log with live deps re-supplied", async () => {
    const store = new MemoryStore();
    const db = new Db();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_todo", args: { text: "milk" } }] },
      { text: "ok" },
      { toolCalls: [{ name: "add_todo", args: { text: "eggs" } }] },
      { text: "ok again" },
    ]);
    const agent = new Agent<Deps>({ model, tools: [addTodo] });
    const first = await agent.run("milk", { sessionId: "u42", store, deps: { todos: [], db } });
    expect(await store.read("u42")).toHaveLength(first.log.length);
    const stored = await store.read("u42");
    expect(JSON.stringify(stored)).not.toContain("writes");
    const second = await agent.run("eggs", { sessionId: "u42", store, deps: { todos: [], db } });
    expect(second.deps.todos).toEqual(["milk", "eggs"]);
    expect(db.writes).toEqual(["milk", "eggs"]);
    expect(second.messages.filter((message) => message.role === "user")).toHaveLength(2);
    expect(await store.read("u42")).toHaveLength(second.log.length);
    expect((await store.get("u42"))?.status).toBe("completed");
    checkProjections(second, { db } as unknown as Deps);
  });

  it("a tool result that is not JSON is an error at that tool call when a store is used", async () => {
    const store = new MemoryStore();
    const bad = tool({
      name: "bad",
      description: "x",
      input: z.object({}),
      execute: () => ({ result: "x", update: ContextUpdate.new().set("when", new Map()) }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "bad" }] }, { text: "ok" }]);
    const result = await new Agent({ model, tools: [bad] }).run("go", { sessionId: "s", store });
    expect(result.deps).toEqual({});
    expect(
      String(
        model.requests[1]?.messages.at(-1)?.role === "tool" &&
          (model.requests[1]?.messages.at(-1) as { result: unknown }).result,
      ),
    ).toMatch(/not JSON data/);
  });
});

describe("durable approvals", () => {
  const transfer = tool({
    name: "transfer",
    description: "x",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => ({ moved: amount }),
  });

  it("pauses with several pending approvals; another connection lists, decides (with edited args) and resumes", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nous-approval-")), "s.db");
    const first = new SqliteStore({ path });
    const model = () =>
      new ScriptedModel([
        {
          toolCalls: [
            { id: "a", name: "transfer", args: { amount: 500 } },
            { id: "b", name: "transfer", args: { amount: 7 } },
          ],
        },
        { text: "done" },
      ]);
    const script = model();
    const error = await new Agent({ model: script, tools: [transfer] })
      .run("pay", { sessionId: "pay-1", store: first })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApprovalPendingError);
    expect((error as ApprovalPendingError).pending.map((call) => call.toolCallId)).toEqual(["a", "b"]);
    await first.close();

    const second = new SqliteStore({ path });
    const pending = await listPendingApprovals(second);
    expect(pending.map((item) => [item.sessionId, item.toolCallId])).toEqual([
      ["pay-1", "a"],
      ["pay-1", "b"],
    ]);
    const [a, b] = pending as [(typeof pending)[0], (typeof pending)[0]];
    await expect(decideApproval(second, { ...a, toolCallId: "zzz" }, { type: "approve" })).rejects.toThrow(
      ApprovalMismatchError,
    );
    await expect(decideApproval(second, { ...a, argsHash: b.argsHash }, { type: "approve" })).rejects.toThrow(
      ApprovalMismatchError,
    );
    await decideApproval(second, a, { type: "edit", args: { amount: 100 } });
    await expect(decideApproval(second, a, { type: "approve" })).rejects.toThrow(/already decided/);
    await decideApproval(second, b, { type: "reject", reason: "no" });

    const resumedModel = new ScriptedModel([{ text: "done" }]);
    const result = await new Agent({ model: resumedModel, tools: [transfer] }).resume("pay-1", { store: second });
    expect(result.output).toBe("done");
    const toolMessages = resumedModel.requests[0]?.messages.filter((message) => message.role === "tool");
    expect(toolMessages).toEqual([
      { role: "tool", toolCallId: "a", toolName: "transfer", result: { moved: 100 }, isError: false },
      {
        role: "tool",
        toolCallId: "b",
        toolName: "transfer",
        result: "The user rejected this tool call: no",
        isError: true,
      },
    ]);
    expect((await second.get("pay-1"))?.status).toBe("completed");
    expect(await listPendingApprovals(second)).toEqual([]);
    await second.close();
  });
});

describe("approval decisions bind to their turn", () => {
  it("a decided call id reused by the model in a later turn needs a new approval", async () => {
    const store = new MemoryStore();
    const runs: number[] = [];
    const pay = tool({
      name: "pay",
      description: "x",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => runs.push(amount),
    });
    await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "a1", name: "pay", args: { amount: 1 } }] }]),
      tools: [pay],
    })
      .run("go", { sessionId: "reuse", store })
      .catch(() => {});
    const [first] = await listPendingApprovals(store);
    await decideApproval(store, first as NonNullable<typeof first>, { type: "approve" });
    const model = new ScriptedModel([{ toolCalls: [{ id: "a1", name: "pay", args: { amount: 2 } }] }]);
    const error = await new Agent({ model, tools: [pay] })
      .resume("reuse", { store })
      .catch((caught: unknown) => caught);
    expect(runs).toEqual([1]);
    expect(error).toBeInstanceOf(ApprovalPendingError);
    const requests = (await store.read("reuse")).filter((event) => event.type === "approval_requested");
    expect(requests).toHaveLength(2);
  });
});

describe("resume", () => {
  it("never re-runs a call with a result; an in-doubt non-idempotent call needs a decision; idempotent ones re-run with a stable key", async () => {
    const store = new MemoryStore();
    const effects: string[] = [];
    const keys: (string | undefined)[] = [];
    const charge = tool({
      name: "charge",
      description: "x",
      input: z.object({}),
      execute: () => {
        effects.push("charge");
        return "charged";
      },
    });
    const email = tool({
      name: "email",
      description: "x",
      input: z.object({}),
      idempotent: true,
      execute: (_args, context) => {
        keys.push(context.idempotencyKey);
        effects.push("email");
        return "sent";
      },
    });
    const script = [
      {
        toolCalls: [
          { id: "e", name: "email" },
          { id: "c", name: "charge" },
        ],
      },
      { text: "all done" },
    ];
    const agent = (steps: typeof script) => new Agent({ model: new ScriptedModel(steps), tools: [email, charge] });
    await agent(script).run("go", { sessionId: "r", store });
    expect(effects).toEqual(["email", "charge"]);
    // Simulate the crash: drop the events after charge's intent, as if the process died there.
    const events = await store.read("r");
    const intent = events.findIndex(
      (event) => event.type === "tool_call" && (event.data as { toolCallId: string }).toolCallId === "c",
    );
    const crashed = new MemoryStore();
    await crashed.append(
      "r",
      events.slice(0, intent + 1).map(({ sessionId: _s, ...event }) => event),
      { expectedLastSeq: 0 },
    );
    effects.length = 0;
    keys.length = 0;

    await expect(agent([{ text: "all done" }]).resume("r", { store: crashed })).rejects.toThrow(ToolInDoubtError);
    expect(effects).toEqual([]);
    const settled = await agent([{ text: "all done" }]).resume("r", {
      store: crashed,
      resolveInDoubt: () => ({ type: "result", result: "charged (verified by hand)" }),
    });
    expect(settled.output).toBe("all done");
    expect(effects).toEqual([]); // email had its result; charge was settled, not re-run
    expect(
      settled.messages
        .filter((message) => message.role === "tool")
        .map((message) => (message as { result: unknown }).result),
    ).toEqual(["sent", "charged (verified by hand)"]);
    await expect(agent([]).resume("r", { store: crashed })).rejects.toThrow(SessionStateError);
  });

  it("two resumers of one session: exactly one proceeds, the other gets a conflict", async () => {
    const store = new MemoryStore();
    const slow = tool({
      name: "slow",
      description: "x",
      input: z.object({}),
      needsApproval: true,
      execute: () => "ok",
    });
    await new Agent({ model: new ScriptedModel([{ toolCalls: [{ id: "s", name: "slow" }] }]), tools: [slow] })
      .run("go", { sessionId: "race", store })
      .catch(() => {});
    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });
    const resumer = () =>
      new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [slow] }).resume("race", { store });
    const outcomes = await Promise.allSettled([resumer(), resumer()]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const rejected = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(SessionConflictError);
  });
});

describe("fork and replay", () => {
  it("a recorded run replays offline to the same log (minus times and latencies)", async () => {
    const store = new MemoryStore();
    const db = new Db();
    const model = new ScriptedModel([{ toolCalls: [{ name: "add_todo", args: { text: "milk" } }] }, { text: "ok" }]);
    const recorded = await new Agent<Deps>({ model, tools: [addTodo] }).run("milk", {
      sessionId: "rec",
      store,
      deps: { todos: [], db },
      runId: "r",
    });
    const replayed = await new Agent<Deps>({ model: new ReplayModel(await store.read("rec")), tools: [addTodo] }).run(
      "milk",
      {
        deps: { todos: [], db },
        runId: "r",
      },
    );
    const normalize = (log: readonly { type: string; data: unknown }[]) =>
      log
        .filter(
          (event) => !(event.type === "context_update" && (event.data as { origin?: string }).origin === "initial"),
        )
        .map((event) => {
          const data = { ...(event.data as Record<string, unknown>) };
          delete data.latencyMs;
          delete data.model;
          // Seq ranges: the recorded session log holds one more event (its initial deps) before them.
          delete data.window;
          return [event.type, data];
        });
    expect(normalize(replayed.log)).toEqual(normalize(recorded.log));
    const forked = await store.fork("rec", { atSeq: 3, newSessionId: "rec-fork" });
    expect(await store.read(forked)).toHaveLength(3);
    expect(await store.read("rec")).toHaveLength(recorded.log.length);
  });
});

describe("resume of an idempotent in-doubt call", () => {
  it("re-runs it with the same idempotency key", async () => {
    const keys: (string | undefined)[] = [];
    const email = tool({
      name: "email",
      description: "x",
      input: z.object({}),
      idempotent: true,
      execute: (_args, context) => {
        keys.push(context.idempotencyKey);
        return "sent";
      },
    });
    const store = new MemoryStore();
    await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "e", name: "email" }] }, { text: "ok" }]),
      tools: [email],
    }).run("go", { sessionId: "i", store, runId: "run-i" });
    const events = await store.read("i");
    const intent = events.findIndex((event) => event.type === "tool_call");
    const crashed = new MemoryStore();
    await crashed.append(
      "i",
      events.slice(0, intent + 1).map(({ sessionId: _s, ...event }) => event),
      { expectedLastSeq: 0 },
    );
    const resumed = await new Agent({ model: new ScriptedModel([{ text: "ok" }]), tools: [email] }).resume("i", {
      store: crashed,
    });
    expect(resumed.output).toBe("ok");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(resumed.log.filter((event) => event.type === "tool_call").at(-1)?.data).toMatchObject({ rerun: true });
  });
});
