/**
 * A stalled worker (SIGSTOP, not dead): another worker takes its run over once the lease lapses and
 * completes it; when the stalled worker wakes up, its late appends are refused by the lease's
 * fencing token, so the log holds only the new owner's events. Real `nous worker` processes,
 * PostgreSQL and Redis.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisReachable } from "../../src/fleet/test-support/redis-server.js";
import { DATABASE_URL, dropSchema, postgresReachable } from "../../src/store/test-support/postgres-server.js";
import {
  callsOf,
  clearQueue,
  createEffects,
  type FleetFixture,
  FleetWorker,
  fleetEnv,
  killAll,
  loadFixture,
  logProblems,
  readEffects,
} from "./fleet-harness.js";

const reachable = (await postgresReachable("fleet stall test")) && (await redisReachable("fleet stall test"));
const env = fleetEnv("fleet_stall");
const schema = env.FLEET_SCHEMA as string;
const workers: FleetWorker[] = [];
let fixture: FleetFixture | undefined;
let pool: pg.Pool | undefined;

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.runIf(reachable)("fleet: a stalled worker", () => {
  beforeAll(async () => {
    fixture = await loadFixture(env);
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    await createEffects(pool, schema);
  });

  afterAll(async () => {
    await killAll(workers);
    if (fixture !== undefined) await clearQueue(fixture.queue).catch(() => undefined);
    await fixture?.queue.close();
    await fixture?.store.close();
    await pool?.end();
    await dropSchema(schema);
  });

  it("is replaced once its lease lapses; its late appends are refused, the log holds only the new owner's events", async () => {
    const { agent, queue, store } = fixture as FleetFixture;
    const a = new FleetWorker(env, 1);
    workers.push(a);
    await a.ready();
    const sessionId = `stall-${process.pid}`;
    const { runId } = await agent.submit("steps=3", { sessionId, deps: { sleepMs: 1_500 } });
    await a.waitFor((line) => line.type === "started" && line.sessionId === sessionId);
    // A is inside the first (slow, idempotent) call: its intent is committed, its result is not.
    await until(async () => callsOf(await store.read(sessionId)).get("call_1"), "A's first intent");
    a.process.kill("SIGSTOP");
    const stoppedAt = Date.now();

    const b = new FleetWorker(env, 1);
    workers.push(b);
    await b.ready();
    const takeover = await b.waitFor((line) => line.type === "started" && line.sessionId === sessionId);
    // A's queue lock and session lease were renewed at most ~1 s before the stop and last 2 s: B
    // cannot have taken a live run (a lower bound, so a slow machine only makes it larger).
    expect(takeover.receivedAt - stoppedAt).toBeGreaterThanOrEqual(900);
    expect(await queue.wait(sessionId)).toEqual({ type: "completed", runId });
    const before = await store.read(sessionId);

    a.process.kill("SIGCONT");
    const refused = await a.waitFor((line) => line.type === "error" && line.sessionId === sessionId, 15_000);
    await sleep(3_000); // whatever else A still tries to write
    expect(refused).toMatchObject({ code: "lease_lost", runId });

    const events = await store.read(sessionId);
    expect(events).toEqual(before); // nothing of A's reached the log after the takeover
    expect(logProblems(events, runId)).toEqual([]);
    expect((await store.verify(sessionId)).ok).toBe(true);
    const resumed = events.findIndex((event) => event.type === "run_resumed");
    expect(resumed).toBeGreaterThan(0);
    // The first call ran twice (A, then B's re-run after the takeover); its one result is B's.
    const first = callsOf(events).get("call_1");
    expect(first?.intents.map((intent) => intent.rerun)).toEqual([false, true]);
    expect(first?.results[0]?.seq).toBeGreaterThan(first?.intents[1]?.seq ?? Number.POSITIVE_INFINITY);
    const effects = (await readEffects(pool as pg.Pool, schema)).filter((row) => row.toolCallId === "call_1");
    // A woke up and finished the call (its effect row), but its result never reached the log.
    expect(effects.map((row) => row.pid).sort()).toEqual([a.pid, b.pid].sort());
    expect(effects.length).toBeLessThanOrEqual(first?.intents.length ?? 0);
  }, 120_000);
});
