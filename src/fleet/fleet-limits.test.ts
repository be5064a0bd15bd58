/**
 * Fairness and backpressure across the fleet: a tenant's concurrency holds over every worker and
 * does not hold up other tenants; the queue-wide concurrency holds over every worker.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { FunctionModel } from "../models/function-model.js";
import { PostgresStore } from "../store/postgres-store.js";
import { DATABASE_URL, dropSchema, postgresReachable } from "../store/test-support/postgres-server.js";
import { tool } from "../tools/tool.js";
import { type RunQueueOptions, runQueue } from "./run-queue.js";
import { runWorker, type WorkerRunEvent } from "./run-worker.js";
import { redisReachable } from "./test-support/redis-server.js";

const reachable = (await postgresReachable("fleet limits suite")) && (await redisReachable("fleet limits suite"));
const schema = `nous_fleet_limits_${process.pid}`;
let store: PostgresStore;

const slow = tool({
  name: "slow",
  description: "Takes a while",
  idempotent: true,
  input: { type: "object", properties: {} },
  execute: async () => {
    await sleep(150);
    return "ok";
  },
});

function agentOn(queue: ReturnType<typeof runQueue>): Agent {
  const model = new FunctionModel((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { text: "done" }
      : { toolCalls: [{ id: "call_1", name: "slow", args: {} }] },
  );
  return new Agent({ name: "limits", model, tools: [slow], queue });
}

/** The most runs that were going at once, from start/end events (of one tenant, when given). */
function peak(events: readonly (WorkerRunEvent & { at: number })[], tenantOf: Map<string, string>, tenant?: string) {
  let going = 0;
  let most = 0;
  for (const event of events) {
    if (event.type !== "started" && event.type !== "ended") continue;
    if (tenant !== undefined && tenantOf.get(event.runId) !== tenant) continue;
    going += event.type === "started" ? 1 : -1;
    most = Math.max(most, going);
  }
  return most;
}

async function fleet(
  options: Omit<RunQueueOptions, "store">,
  workers: number,
  submit: (agent: Agent) => Promise<string[]>,
) {
  const queue = runQueue({ store, leaseTtlMs: 2_000, ...options });
  const agent = agentOn(queue);
  const events: (WorkerRunEvent & { at: number })[] = [];
  const running = await Promise.all(
    Array.from({ length: workers }, () =>
      runWorker({ queue, agent, concurrency: 4, onRun: (event) => events.push({ ...event, at: performance.now() }) }),
    ),
  );
  try {
    const sessions = await submit(agent);
    for (const sessionId of sessions) expect((await agent.result(sessionId)).output).toBe("done");
    return events;
  } finally {
    await Promise.all(running.map((worker) => worker.close()));
    await queue.engine.obliterate({ force: true });
    await queue.close();
  }
}

describe.runIf(reachable)("fleet limits", () => {
  beforeAll(async () => {
    store = await PostgresStore.connect(DATABASE_URL, { schema });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });

  it("a tenant's concurrency holds across two workers; another tenant's run is not held up behind it", async () => {
    const tenantOf = new Map<string, string>();
    const events = await fleet(
      { name: `limits-${process.pid}-t`, tenants: { byTenant: { acme: { concurrency: 1 } } } },
      2,
      async (agent) => {
        const sessions: string[] = [];
        for (let index = 0; index < 4; index++) {
          const submission = await agent.submit("go", { tenant: "acme" });
          tenantOf.set(submission.runId, "acme");
          sessions.push(submission.sessionId);
        }
        const other = await agent.submit("go", { tenant: "globex" });
        tenantOf.set(other.runId, "globex");
        return [...sessions, other.sessionId];
      },
    );
    expect(peak(events, tenantOf, "acme")).toBe(1);
    expect(events.some((event) => event.type === "postponed" && /acme/.test(event.reason))).toBe(true);
    // globex's run, submitted last, ended before acme's last run started.
    const globexEnd = events.find((event) => event.type === "ended" && tenantOf.get(event.runId) === "globex")?.at ?? 0;
    const acmeStarts = events.filter((event) => event.type === "started" && tenantOf.get(event.runId) === "acme");
    expect(globexEnd).toBeLessThan(acmeStarts.at(-1)?.at ?? 0);
  });

  it("the queue-wide concurrency holds across two workers of 4 each", async () => {
    const events = await fleet({ name: `limits-${process.pid}-g`, concurrency: 1 }, 2, async (agent) => {
      const sessions: string[] = [];
      for (let index = 0; index < 4; index++) sessions.push((await agent.submit("go")).sessionId);
      return sessions;
    });
    expect(peak(events, new Map())).toBe(1);
    expect(events.filter((event) => event.type === "ended")).toHaveLength(4);
  });
});
