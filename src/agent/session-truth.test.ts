/**
 * The log is the truth of a session: a re-run uses the decided arguments, state deps come from the
 * log alone, a call in doubt blocks new runs until settled, a settled call records its update, and
 * a value that cannot be recorded is an error at its call.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ContextUpdate } from "../context/context-update.js";
import { SessionStateError, ToolInDoubtError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps } from "../session/projections.js";
import type { RunContext } from "../session/run-context.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

/** A copy of `events` up to and including the first one `stop` picks, as if the process died right after it. */
async function crashedCopy(store: SessionStore, sessionId: string, stop: (event: SessionEvent) => boolean) {
  const events = await store.read(sessionId);
  const at = events.findIndex(stop);
  expect(at).toBeGreaterThan(-1);
  const copy = new MemoryStore();
  const kept = events.slice(0, at + 1).map(({ sessionId: _session, ...event }) => event as SessionEvent);
  await copy.append(sessionId, kept, { expectedLastSeq: 0 });
  return copy;
}

const intentOf = (id: string) => (event: SessionEvent) =>
  event.type === "tool_call" && (event.data as { toolCallId?: string }).toolCallId === id;

describe("a re-run after a crash uses the decided arguments", () => {
  const moves: number[] = [];
  const transfer = (idempotent: boolean) =>
    tool({
      name: "transfer",
      description: "Move money",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      idempotent,
      execute: ({ amount }) => {
        moves.push(amount);
        return { moved: amount };
      },
    });
  const script = () =>
    new ScriptedModel([{ toolCalls: [{ id: "t1", name: "transfer", args: { amount: 1000 } }] }, { text: "done" }]);

  it.each([false, true])("edited from another process (idempotent: %s)", async (idempotent) => {
    moves.length = 0;
    const store = new MemoryStore();
    const agent = new Agent({ model: script(), tools: [transfer(idempotent)] });
    await expect(agent.run("pay", { sessionId: "p", store })).rejects.toThrow(/approval/i);
    const [pending] = await listPendingApprovals(store);
    if (pending === undefined) throw new Error("no pending approval");
    await decideApproval(store, pending, { type: "edit", args: { amount: 50 } });
    await new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [transfer(idempotent)] }).resume("p", {
      store,
    });
    expect(moves).toEqual([50]);

    // The process died inside the call, before its effect: only the intent is in the log.
    const crashed = await crashedCopy(store, "p", intentOf("t1"));
    moves.length = 0;
    const resumed = new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [transfer(idempotent)] });
    if (!idempotent) {
      const error = await resumed.resume("p", { store: crashed }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ToolInDoubtError);
      expect((error as ToolInDoubtError).call.args).toEqual({ amount: 50 });
    }
    const shown: unknown[] = [];
    const result = await resumed.resume("p", {
      store: crashed,
      resolveInDoubt: (call) => {
        shown.push(call.args);
        return { type: "rerun" };
      },
    });
    expect(result.output).toBe("done");
    expect(shown).toEqual(idempotent ? [] : [{ amount: 50 }]);
    expect(moves).toEqual([50]);
    const reruns = (await crashed.read("p")).filter(intentOf("t1")).map((event) => event.data);
    expect(reruns.at(-1)).toMatchObject({ args: { amount: 50 }, rerun: true });
  });

  it("edited by the approval handler, and a preToolUse change is not applied twice", async () => {
    moves.length = 0;
    const store = new MemoryStore();
    const hookCalls: unknown[] = [];
    const options = {
      tools: [transfer(true)],
      approvalHandler: () => ({ type: "edit" as const, args: { amount: 50 } }),
      hooks: {
        preToolUse: (call: { args: unknown }) => {
          hookCalls.push(call.args);
          const { amount } = call.args as { amount: number };
          return { type: "modify" as const, args: { amount: amount + 1 } };
        },
      },
    };
    await new Agent({ model: script(), ...options }).run("pay", { sessionId: "h", store });
    expect(moves).toEqual([50]); // hook: 1000 → 1001, then the person's edit: 50
    const crashed = await crashedCopy(store, "h", intentOf("t1"));
    moves.length = 0;
    hookCalls.length = 0;
    await new Agent({ model: new ScriptedModel([{ text: "done" }]), ...options }).resume("h", { store: crashed });
    expect(moves).toEqual([50]);
    expect(hookCalls).toEqual([]); // the recorded intent is the decision: nobody is asked again
  });
});

describe("state deps come from the log alone", () => {
  class Db {
    readonly writes: string[] = [];
  }
  type Deps = { todos: string[]; flag?: boolean; theme?: string; db: Db };
  const forget = tool({
    name: "forget",
    description: "x",
    input: z.object({}),
    execute: (_args, context: RunContext<Deps>) => {
      context.deps.db.writes.push("forget");
      return { result: "ok", update: ContextUpdate.new<Deps>().delete("flag").append("todos", "b") };
    },
  });

  it("a deleted key is not revived by the caller's deps, on continue and on resume", async () => {
    const store = new MemoryStore();
    const db = new Db();
    const agent = (steps: ConstructorParameters<typeof ScriptedModel>[0]) =>
      new Agent<Deps>({ model: new ScriptedModel(steps), tools: [forget] });
    const full: Deps = { todos: ["a"], flag: true, db };
    await agent([{ toolCalls: [{ name: "forget" }] }, { text: "ok" }]).run("go", { sessionId: "s", store, deps: full });

    const continued = await agent([{ text: "again" }]).run("more", { sessionId: "s", store, deps: full });
    expect(continued.deps).toEqual({ todos: ["a", "b"], db });
    expect("flag" in continued.deps).toBe(false);
    expect(projectDeps(continued.log, { db })).toEqual(continued.deps);
    checkProjections(continued, { db } as Deps);

    // Crash right after a later run's tool call is recorded, then resume with full deps again.
    await agent([{ toolCalls: [{ id: "f2", name: "forget" }] }, { text: "ok" }]).run("x", {
      sessionId: "s",
      store,
      deps: full,
    });
    const crashed = await crashedCopy(
      store,
      "s",
      (event) => event.type === "tool_result" && (event.data as { toolCallId?: string }).toolCallId === "f2",
    );
    const resumed = await agent([{ text: "resumed" }]).resume("s", { store: crashed, deps: full });
    expect(resumed.deps).toEqual({ todos: ["a", "b", "b"], db });
    expect(projectDeps(resumed.log, { db })).toEqual(resumed.deps);
  });

  it("a state key the log never had is taken from the caller and recorded", async () => {
    const store = new MemoryStore();
    const db = new Db();
    const agent = new Agent<Deps>({ model: new ScriptedModel([{ text: "1" }, { text: "2" }]) });
    await agent.run("one", { sessionId: "n", store, deps: { todos: [], db } });
    const second = await agent.run("two", { sessionId: "n", store, deps: { todos: ["ignored"], theme: "dark", db } });
    expect(second.deps).toEqual({ todos: [], theme: "dark", db });
    expect(projectDeps(await store.read("n"), { db })).toEqual(second.deps);
  });
});

describe("a call in doubt must be settled before the session runs again", () => {
  const charges: number[] = [];
  const charge = tool({
    name: "charge",
    description: "x",
    input: z.object({ cents: z.number() }),
    execute: ({ cents }) => {
      charges.push(cents);
      return { charged: cents };
    },
  });
  type Deps = { paid?: number[] };

  async function inDoubtSession() {
    const store = new MemoryStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "charge", args: { cents: 700 } }] },
      { text: "ok" },
    ]);
    await new Agent<Deps>({ model, tools: [charge] }).run("pay", { sessionId: "d", store });
    const crashed = await crashedCopy(store, "d", intentOf("c1"));
    const agent = new Agent<Deps>({
      model: new ScriptedModel([{ text: "settled" }, { text: "next" }]),
      tools: [charge],
    });
    await expect(agent.resume("d", { store: crashed })).rejects.toThrow(ToolInDoubtError);
    return { crashed, agent };
  }

  it("refuses a new run, changing nothing; settling by resume runs as `running` and then allows it", async () => {
    charges.length = 0;
    const { crashed, agent } = await inDoubtSession();
    const before = await crashed.read("d");
    const error = await agent
      .run("something else", { sessionId: "d", store: crashed })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionStateError);
    expect((error as Error).message).toMatch(/"c1"/);
    expect(await crashed.read("d")).toEqual(before);

    const statuses: (string | undefined)[] = [];
    const settled = await agent.resume("d", {
      store: crashed,
      resolveInDoubt: async () => {
        statuses.push((await crashed.get("d"))?.status);
        return { type: "result", result: { charged: 700, verified: true } };
      },
    });
    expect(statuses).toEqual(["running"]);
    expect(settled.output).toBe("settled");
    expect(charges).toEqual([700]); // the first run's only
    expect((await crashed.get("d"))?.status).toBe("completed");
    const next = await agent.run("next", { sessionId: "d", store: crashed });
    expect(next.output).toBe("next");
  });

  it("a call settled by hand records the state change it made", async () => {
    charges.length = 0;
    const { crashed, agent } = await inDoubtSession();
    const settled = await agent.resume("d", {
      store: crashed,
      resolveInDoubt: () => ({
        type: "result",
        result: { charged: 700 },
        update: ContextUpdate.new<Deps>().append("paid", 700).logEvent("reconciled", { by: "ops" }),
      }),
    });
    expect(settled.deps).toEqual({ paid: [700] });
    const log = await crashed.read("d");
    expect(projectDeps(log, {})).toEqual({ paid: [700] });
    const update = log.find((event) => event.type === "context_update");
    expect(update?.data).toMatchObject({ toolCallId: "c1", toolName: "charge" });
    expect(log.some((event) => event.type === "reconciled")).toBe(true);
  });
});

describe("a cancelled call", () => {
  const started: string[] = [];
  const slow = (idempotent: boolean) =>
    tool({
      name: idempotent ? "look" : "pay",
      description: "x",
      input: z.object({}),
      idempotent,
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          started.push(context.toolCallId ?? "");
          context.signal.addEventListener("abort", () => reject(context.signal.reason));
        }),
    });

  async function cancelled(idempotent: boolean) {
    const store = new MemoryStore();
    const name = idempotent ? "look" : "pay";
    const model = new ScriptedModel([{ toolCalls: [{ id: "x1", name }] }, { text: "next answer" }]);
    const agent = new Agent({ model, tools: [slow(idempotent)] });
    const controller = new AbortController();
    started.length = 0;
    const running = agent.run("go", { sessionId: "c", store, signal: controller.signal });
    while (started.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    await expect(running).rejects.toThrow(/cancel/i);
    return { agent, store };
  }

  it("of an idempotent tool is abandoned with an event and an error result when a new run starts", async () => {
    const { agent, store } = await cancelled(true);
    const next = await agent.run("and now?", { sessionId: "c", store });
    expect(next.output).toBe("next answer");
    const log = await store.read("c");
    const abandoned = log.findIndex((event) => event.type === "tool_call_abandoned");
    expect(log[abandoned]?.data).toMatchObject({ toolCallId: "x1", toolName: "look" });
    expect(log[abandoned + 1]).toMatchObject({ type: "tool_result", data: { toolCallId: "x1", isError: true } });
    expect(log[abandoned + 2]?.type).toBe("run_started");
    checkProjections(next, {});
  });

  it("of a tool with effects stays in doubt: a new run is refused", async () => {
    const { agent, store } = await cancelled(false);
    await expect(agent.run("and now?", { sessionId: "c", store })).rejects.toThrow(SessionStateError);
  });
});

describe("a value that cannot be recorded is an error result at its call", () => {
  function deep(levels: number): unknown {
    let value: unknown = "leaf";
    for (let level = 0; level < levels; level++) value = { next: value };
    return value;
  }
  const dig = tool({ name: "dig", description: "x", input: z.object({}), execute: () => deep(20_000) });
  const agent = () =>
    new Agent({ model: new ScriptedModel([{ toolCalls: [{ name: "dig" }] }, { text: "ok" }]), tools: [dig] });

  it.each(["memory", "sqlite"] as const)("a 20,000-deep result with a %s store", async (kind) => {
    const store =
      kind === "memory"
        ? new MemoryStore()
        : new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), "nous-deep-")), "s.db") });
    try {
      const result = await agent().run("dig", { sessionId: "deep", store });
      expect(result.output).toBe("ok");
      const toolMessage = result.messages.find((message) => message.role === "tool") as {
        result: unknown;
        isError: boolean;
      };
      expect(toolMessage.isError).toBe(true);
      expect(String(toolMessage.result)).toMatch(/nested deeper than 1000 levels/);
      expect((await store.get("deep"))?.status).toBe("completed");
    } finally {
      await store.close();
    }
  });

  it("without a store the value is passed on as it is", async () => {
    const result = await agent().run("dig");
    expect(result.output).toBe("ok");
  });
});
