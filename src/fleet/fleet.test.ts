/**
 * The fleet in one process: submit returns at once, a worker runs the run, result and follow read it
 * back from the log; what a queue refuses (secrets, non-JSON, a full queue, a spent budget).
 * Real Redis (127.0.0.1:6379) and PostgreSQL; the multi-process campaigns are in test/fleet/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import {
  QueueArgumentError,
  QueuedRunFailedError,
  QueueFullError,
  QueueUnavailableError,
  TenantBudgetExceededError,
} from "../errors/fleet-errors.js";
import { ToolInDoubtError } from "../errors/run-errors.js";
import { FunctionModel } from "../models/function-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { PostgresStore } from "../store/postgres-store.js";
import { DATABASE_URL, dropSchema, postgresReachable } from "../store/test-support/postgres-server.js";
import { tool } from "../tools/tool.js";
import { runQueue } from "./run-queue.js";
import { runWorker } from "./run-worker.js";
import { redisReachable } from "./test-support/redis-server.js";

const reachable = (await postgresReachable("fleet suite")) && (await redisReachable("fleet suite"));
const schema = `nous_fleet_unit_${process.pid}`;
let store: PostgresStore;

const lookup = tool({
  name: "lookup",
  description: "Look up",
  idempotent: true,
  input: { type: "object", properties: { n: { type: "number" } } },
  execute: ({ n }: { n?: number }) => ({ n, found: true }),
});

function model(): FunctionModel {
  return new FunctionModel((request) => {
    const done = request.messages.filter((message) => message.role === "tool").length;
    return done === 0 ? { toolCalls: [{ id: "call_1", name: "lookup", args: { n: 1 } }] } : { text: "found it" };
  });
}

describe.runIf(reachable)("fleet: submit, worker, result, follow", () => {
  beforeAll(async () => {
    store = await PostgresStore.connect(DATABASE_URL, { schema });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });

  it("runs a submitted run in a worker; result and follow read it back from the log", async () => {
    const queue = runQueue({ store, name: `unit-${process.pid}-a`, leaseTtlMs: 2_000 });
    const agent = new Agent({ name: "unit", model: model(), tools: [lookup], queue });
    const started = performance.now();
    const submission = await agent.submit("find 1", {
      sessionId: `s-${process.pid}-1`,
      deps: { region: "eu" },
      tenant: "acme",
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(submission).toMatchObject({ sessionId: `s-${process.pid}-1`, queue: queue.name, tenant: "acme" });
    expect(await store.read(submission.sessionId)).toEqual([]); // nothing ran yet
    const runs: string[] = [];
    const worker = await runWorker({
      queue,
      agent,
      deps: ({ tenant }) => ({ client: { tenant, query: () => tenant } }), // live: not JSON
      onRun: (event) => runs.push(event.type),
    });
    try {
      const followed: string[] = [];
      const following = (async () => {
        for await (const event of agent.follow(submission.sessionId)) followed.push(event.type);
      })();
      const result = await agent.result(submission.sessionId);
      await following;
      expect(result.output).toBe("found it");
      expect(result.runId).toBe(submission.runId);
      expect(result.deps).toMatchObject({ region: "eu" });
      const log = await store.read(submission.sessionId);
      expect(followed).toEqual(log.map((event) => event.type));
      expect(log.find((event) => event.type === "run_started")?.data).toMatchObject({
        runId: submission.runId,
        agent: "unit",
      });
      // The live deps never reach the log.
      expect(JSON.stringify(log)).not.toContain("client");
      expect(runs).toEqual(["started", "ended"]);
      // A follower that comes back later with a seq misses nothing and gets no duplicates.
      const again: number[] = [];
      for await (const event of agent.follow(submission.sessionId, { fromSeq: 3 })) again.push(event.seq);
      expect(again).toEqual(log.slice(2).map((event) => event.seq));
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("refuses what a queue must not carry, and a full queue, before anything is queued", async () => {
    const queue = runQueue({ store, name: `unit-${process.pid}-b`, maxDepth: 2 });
    const agent = new Agent({
      name: "unit",
      model: model(),
      tools: [lookup],
      queue,
      secret: ["apiKey", "db.password"],
    });
    try {
      await expect(agent.submit("x", { deps: { apiKey: "sk-123" } })).rejects.toThrow(QueueArgumentError);
      await expect(agent.submit("x", { deps: { db: { password: "p" } } })).rejects.toThrow(/secret path/);
      await expect(agent.submit("x", { deps: { when: new Date() } as never })).rejects.toThrow(QueueArgumentError);
      await expect(agent.submit("x", { sessionId: "bad id!" })).rejects.toThrow(QueueArgumentError);
      expect(await queue.depth()).toBe(0);
      await agent.submit("one");
      await agent.submit("two");
      const full = await agent.submit("three").catch((error: unknown) => error);
      expect(full).toBeInstanceOf(QueueFullError);
      expect(full).toMatchObject({ code: "queue_full", depth: 2, maxDepth: 2 });
      expect(await queue.depth()).toBe(2);
    } finally {
      await queue.engine.obliterate({ force: true });
      await queue.close();
    }
  });

  it("a tenant past its token budget is refused at submit; usage is counted per tenant from the log", async () => {
    const queue = runQueue({
      store,
      name: `unit-${process.pid}-c`,
      tenants: { byTenant: { small: { budgetTokens: 1 } } },
    });
    const agent = new Agent({ name: "unit", model: model(), tools: [lookup], queue });
    const worker = await runWorker({ queue, agent });
    try {
      await queue.tenants.resetUsage("small");
      const first = await agent.submit("find", { tenant: "small" });
      await agent.result(first.sessionId);
      expect((await queue.tenants.budget("small"))?.used).toBeGreaterThan(1);
      await expect(agent.submit("again", { tenant: "small" })).rejects.toThrow(TenantBudgetExceededError);
      const other = await agent.submit("find", { tenant: "big" });
      expect((await agent.result(other.sessionId)).output).toBe("found it");
    } finally {
      await worker.close();
      await queue.engine.obliterate({ force: true });
      await queue.close();
    }
  });

  it("a failed run and a run refused by its worker reach result() as typed errors", async () => {
    const queue = runQueue({ store, name: `unit-${process.pid}-d` });
    const failing = new FunctionModel(() => ({ toolCalls: [{ name: "lookup", args: { n: 1 } }] }));
    const agent = new Agent({ name: "unit", model: failing, tools: [lookup], queue, maxIterations: 2 });
    const worker = await runWorker({ queue, agent });
    try {
      const { sessionId } = await agent.submit("loop");
      const error = await agent.result(sessionId).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(QueuedRunFailedError);
      expect(error).toMatchObject({ runCode: "max_iterations_exceeded" });
      // A run submitted by another agent is refused by this worker, not run.
      const stranger = new Agent({ name: "other", model: model(), queue });
      const refused = await stranger.submit("hi");
      await expect(stranger.result(refused.sessionId)).rejects.toMatchObject({ runCode: "agent_mismatch" });
      expect(await store.read(refused.sessionId)).toEqual([]);
    } finally {
      await worker.close();
      await queue.engine.obliterate({ force: true });
      await queue.close();
    }
  });

  it("a submit while Redis is unreachable fails soon with QueueUnavailableError", async () => {
    const queue = runQueue({ store, name: `unit-${process.pid}-e`, redis: "redis://127.0.0.1:1" });
    const agent = new Agent({ name: "unit", model: model(), tools: [lookup], queue });
    try {
      const started = performance.now();
      const error = await agent.submit("x").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(QueueUnavailableError);
      expect(error).toMatchObject({ code: "queue_unavailable", fault: "store", queue: queue.name });
      expect(performance.now() - started).toBeLessThan(30_000); // not forever
    } finally {
      await queue.close();
    }
  });

  it("without a queue, submit/result/follow say how to get one", async () => {
    const agent = new Agent({ model: model(), tools: [lookup] });
    await expect(agent.submit("x")).rejects.toThrow(/needs a run queue/);
    expect(() => agent.follow("s")).toThrow(/needs a run queue/);
    void MemoryStore;
    void ToolInDoubtError;
  });
});
