/**
 * Session runs hold their session's lease: taken before the log is read, renewed while tools run,
 * released however the run ends; a run whose lease was taken over can never write again.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { LeaseLostError } from "../errors/lease-errors.js";
import {
  ApprovalPendingError,
  CancelledError,
  MaxIterationsExceededError,
  SessionStateError,
} from "../errors/run-errors.js";
import { SessionConflictError } from "../errors/store-errors.js";
import { DefinitionError } from "../errors/user-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { RunContext } from "../session/run-context.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

const LONG = 60_000;

/** Whether another owner can take the session now (taking and giving it straight back). */
async function takeable(store: SessionStore, sessionId: string): Promise<boolean> {
  try {
    await store.releaseLease(await store.acquireLease(sessionId, { owner: "probe", ttlMs: LONG }));
    return true;
  } catch (error) {
    if (error instanceof SessionConflictError && error.reason === "lease_held") return false;
    throw error;
  }
}

/** Blocks the event loop (a stalled process: no timer, no heartbeat runs). */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Resolves when `signal` aborts, with its reason. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

/** A tool that runs `body` and answers "ok". */
function probeTool(body: (context: RunContext<Record<string, unknown>>) => Promise<void> | void) {
  return tool({
    name: "probe",
    description: "x",
    input: z.object({}),
    execute: async (_args, context: RunContext<Record<string, unknown>>) => {
      await body(context);
      return "ok";
    },
  });
}

const callProbe = [{ toolCalls: [{ id: "p", name: "probe" }] }, { text: "done" }];

describe.each<[string, () => SessionStore]>([
  ["memory", () => new MemoryStore()],
  ["sqlite", () => new SqliteStore({ path: ":memory:" })],
])("session leases (%s)", (_name, makeStore) => {
  it("holds the lease while the run goes, tools included, and releases it when the run completes", async () => {
    const store = makeStore();
    const seen: { takeable: boolean; status: string | undefined }[] = [];
    const agent = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          seen.push({ takeable: await takeable(store, "s"), status: (await store.get("s"))?.status });
        }),
      ],
    });
    const result = await agent.run("go", { sessionId: "s", store });
    expect(result.output).toBe("done");
    expect(seen).toEqual([{ takeable: false, status: "running" }]);
    expect(await takeable(store, "s")).toBe(true);
    expect((await store.get("s"))?.status).toBe("completed");
    await store.close();
  });

  it("releases the lease when the run fails, pauses for approval, is aborted, or is refused before it starts", async () => {
    const store = makeStore();
    const held: boolean[] = [];
    const holding = (sessionId: string) => async () => {
      held.push(!(await takeable(store, sessionId)));
    };
    const loop = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "probe" }] }, { toolCalls: [{ name: "probe" }] }]),
      tools: [probeTool(holding("failed"))],
      maxIterations: 1,
    });
    await expect(loop.run("go", { sessionId: "failed", store })).rejects.toBeInstanceOf(MaxIterationsExceededError);
    expect(await takeable(store, "failed")).toBe(true);

    const pay = tool({
      name: "pay",
      description: "x",
      input: z.object({}),
      needsApproval: true,
      execute: () => "paid",
    });
    const paying = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "a", name: "pay" }] }]),
      tools: [pay],
      hooks: { sessionStart: holding("paused") },
    });
    await expect(paying.run("go", { sessionId: "paused", store })).rejects.toBeInstanceOf(ApprovalPendingError);
    expect(await takeable(store, "paused")).toBe(true);
    // Deciding is an unfenced append: it needs the session free, and it is.
    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });

    const controller = new AbortController();
    const cancelling = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          await holding("aborted")();
          controller.abort(new Error("stop"));
        }),
      ],
    });
    await expect(
      cancelling.run("go", { sessionId: "aborted", store, signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(await takeable(store, "aborted")).toBe(true);
    expect(held).toEqual([true, true, true]);

    // A new run on a session with an unfinished run is refused after taking the lease: it gives it back.
    await expect(paying.run("again", { sessionId: "paused", store })).rejects.toBeInstanceOf(SessionStateError);
    expect(await takeable(store, "paused")).toBe(true);
    await store.close();
  });

  it("releases the lease at the end of a stream", async () => {
    const store = makeStore();
    const held: boolean[] = [];
    const agent = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          held.push(!(await takeable(store, "streamed")));
        }),
      ],
    });
    const types: string[] = [];
    for await (const event of agent.stream("go", { sessionId: "streamed", store })) types.push(event.type);
    expect(types.at(-1)).toBe("run_completed");
    expect(held).toEqual([true]);
    expect(await takeable(store, "streamed")).toBe(true);
    await store.close();
  });

  it("lets the session go before the run's end is seen: by sessionEnd, and by a reader that stops at run_completed", async () => {
    const store = makeStore();
    const atEnd: boolean[] = [];
    const agent = new Agent({
      model: new ScriptedModel([...callProbe, ...callProbe]),
      tools: [probeTool(() => undefined)],
      hooks: {
        sessionEnd: async () => {
          atEnd.push(await takeable(store, "chat"));
        },
      },
    });
    for (const prompt of ["one", "two"]) {
      for await (const event of agent.stream(prompt, { sessionId: "chat", store })) {
        if (event.type === "run_completed") break;
      }
      // The next turn of a chat starts right away, in the same process.
      expect(await takeable(store, "chat")).toBe(true);
    }
    expect(atEnd).toEqual([true, true]);
    expect((await store.read("chat")).filter((event) => event.type === "run_completed")).toHaveLength(2);
    await store.close();
  });

  it("refuses a run and a resume while another run's lease is live, changing nothing", async () => {
    const store = makeStore();
    const holder = await store.acquireLease("busy", { owner: "other-process", ttlMs: LONG });
    const agent = new Agent({ model: new ScriptedModel(callProbe), tools: [probeTool(() => undefined)] });
    const refused = agent.run("go", { sessionId: "busy", store });
    await expect(refused).rejects.toBeInstanceOf(SessionConflictError);
    await expect(refused).rejects.toMatchObject({ reason: "lease_held", heldBy: "other-process" });
    expect(await store.exists("busy")).toBe(false);
    await store.releaseLease(holder);

    const pay = tool({
      name: "pay",
      description: "x",
      input: z.object({}),
      needsApproval: true,
      execute: () => "paid",
    });
    const paying = new Agent({ model: new ScriptedModel([{ toolCalls: [{ id: "a", name: "pay" }] }]), tools: [pay] });
    await expect(paying.run("go", { sessionId: "busy", store })).rejects.toBeInstanceOf(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });
    const before = await store.read("busy");
    const other = await store.acquireLease("busy", { owner: "other-process", ttlMs: LONG });
    const resumed = new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [pay] }).resume("busy", { store });
    await expect(resumed).rejects.toMatchObject({ code: "session_conflict", reason: "lease_held" });
    expect(await store.read("busy")).toEqual(before);
    await store.releaseLease(other);
    const finished = await new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [pay] }).resume("busy", {
      store,
    });
    expect(finished.output).toBe("done");
    await store.close();
  });

  it("keeps the lease through a tool slower than many ttls: the heartbeat renews it", async () => {
    const store = makeStore();
    const ttlMs = 400;
    const checks: boolean[] = [];
    const agent = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          for (let round = 0; round < 3; round++) {
            await new Promise((resolve) => setTimeout(resolve, ttlMs));
            checks.push(await takeable(store, "slow"));
          }
        }),
      ],
      lease: { ttlMs },
    });
    expect((await agent.run("go", { sessionId: "slow", store })).output).toBe("done");
    expect(checks).toEqual([false, false, false]);
    await store.close();
  });

  it("stops a run whose lease was taken over while its tool ran: the tool is aborted, nothing more is written", async () => {
    const store = makeStore();
    const ttlMs = 60;
    let reason: unknown;
    let lastSeqAtTakeover = -1;
    const agent = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async (context) => {
          lastSeqAtTakeover = await store.lastSeq("taken");
          stall(ttlMs * 3); // the process stalls: no heartbeat, the lease expires …
          void store.acquireLease("taken", { owner: "intruder", ttlMs: LONG }); // … and another process takes over
          reason = await aborted(context.signal); // the next heartbeat finds out and aborts the tool
        }),
      ],
      lease: { ttlMs },
    });
    const error = await agent.run("go", { sessionId: "taken", store }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ code: "lease_lost", sessionId: "taken" });
    expect(reason).toBe(error);
    expect(await store.lastSeq("taken")).toBe(lastSeqAtTakeover);
    expect((await store.read("taken")).some((event) => event.type === "tool_result")).toBe(false);
    await expect(store.acquireLease("taken", { owner: "third", ttlMs: LONG })).rejects.toMatchObject({
      heldBy: "intruder",
    });
    await store.close();
  });

  it("refuses the next commit of a run that was taken over before any heartbeat noticed", async () => {
    const store = makeStore();
    const ttlMs = 60;
    let lastSeqAtTakeover = -1;
    const agent = new Agent({
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          lastSeqAtTakeover = await store.lastSeq("fenced");
          stall(ttlMs * 3);
          // Taken over synchronously, and the tool returns at once: the commit of its result is the next write.
          void store.acquireLease("fenced", { owner: "intruder", ttlMs: LONG });
        }),
      ],
      lease: { ttlMs },
    });
    await expect(agent.run("go", { sessionId: "fenced", store })).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.lastSeq("fenced")).toBe(lastSeqAtTakeover);
    await store.close();
  });

  it("gives a sub-agent its own lease on its own session", async () => {
    const store = makeStore();
    const seen: boolean[] = [];
    const child = new Agent({
      name: "child",
      model: new ScriptedModel(callProbe),
      tools: [
        probeTool(async () => {
          seen.push(await takeable(store, "parent/r1"), await takeable(store, "parent"));
        }),
      ],
    });
    const research = agentAsTool(child, { name: "research", description: "x" });
    const parent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ id: "r1", name: "research", args: { prompt: "go" } }] },
        { text: "ok" },
      ]),
      tools: [research, probeTool(() => undefined)],
    });
    expect((await parent.run("go", { sessionId: "parent", store })).output).toBe("ok");
    expect(seen).toEqual([false, false]);
    expect(await takeable(store, "parent")).toBe(true);
    await store.close();
  });
});

it("checks lease settings", async () => {
  const agent = new Agent({ model: new ScriptedModel([{ text: "hi" }]), lease: { ttlMs: 5 } });
  await expect(agent.run("go", { sessionId: "s", store: new MemoryStore() })).rejects.toBeInstanceOf(DefinitionError);
});
