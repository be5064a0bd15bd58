/**
 * The failover campaign: N runs (1,000 under CI, NOUS_FLEET_RUNS overrides) over 4 real `nous worker`
 * processes while a random one (seeded) is SIGKILLed every 2–3 s and replaced. Every run ends with an
 * outcome: completed, or in doubt on a charge (never a lookup) that the test then settles, so every
 * run completes. Every log is dense with one start and one end, no call is repeated without `rerun`,
 * and no call ran more often than the log has intents for it (a charge at most once).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inDoubtCalls } from "../../src/agent/in-doubt-calls.js";
import type { QueuedOutcome } from "../../src/agent/run-queue-port.js";
import { redisReachable } from "../../src/fleet/test-support/redis-server.js";
import { DATABASE_URL, dropSchema, postgresReachable } from "../../src/store/test-support/postgres-server.js";
import { describeTimes, effectProblems, Fleet, inBatches, planRuns } from "./fleet-campaign.js";
import {
  callsOf,
  clearQueue,
  createEffects,
  type EffectRow,
  type FleetFixture,
  fleetEnv,
  killAll,
  loadFixture,
  logProblems,
  prng,
  readEffects,
} from "./fleet-harness.js";

const reachable = (await postgresReachable("fleet failover test")) && (await redisReachable("fleet failover test"));
const RUNS = Number(process.env.NOUS_FLEET_RUNS ?? (process.env.CI ? 1_000 : 300));
const SEED = Number(process.env.NOUS_FLEET_SEED ?? 20_261_202);
const WORKERS = 4;
const env = fleetEnv("fleet_failover");
const schema = env.FLEET_SCHEMA as string;
const random = prng(SEED);
const fleet = new Fleet(env, 8, random);
let fixture: FleetFixture | undefined;
let pool: pg.Pool | undefined;

describe.runIf(reachable)("fleet: failover under SIGKILL", () => {
  beforeAll(async () => {
    fixture = await loadFixture(env);
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    await createEffects(pool, schema);
  });

  afterAll(async () => {
    await fleet.stop();
    await killAll(fleet.all);
    if (fixture !== undefined) await clearQueue(fixture.queue).catch(() => undefined);
    await fixture?.queue.close();
    await fixture?.store.close();
    await pool?.end();
    await dropSchema(schema);
  });

  it(`${RUNS} runs over ${WORKERS} workers killed every 2–3 s: every run completes once, no call repeated`, async () => {
    const { agent, queue, store } = fixture as FleetFixture;
    const db = pool as pg.Pool;
    const started = Date.now();
    const plan = planRuns(RUNS, random, `fo-${process.pid}`);
    await fleet.fill(WORKERS);

    let submitted = false;
    const killing = fleet.killLoop(() => submitted && fleet.kills.length >= 3 && fleet.endedRuns() >= RUNS * 0.9);
    const runIds = new Map<string, string>();
    try {
      await inBatches(plan, 16, async (run) => {
        const submission = await agent.submit(run.prompt, { sessionId: run.sessionId, deps: { sleepMs: run.sleepMs } });
        runIds.set(run.sessionId, submission.runId);
      });
    } finally {
      submitted = true;
    }
    await killing;

    const outcomes = await inBatches(plan, 32, (run) =>
      queue.wait(run.sessionId, { signal: AbortSignal.timeout(180_000) }),
    );
    const unexpected = outcomes.filter((outcome) => outcome.type !== "completed" && outcome.type !== "in_doubt");
    expect(unexpected).toEqual([]);

    // In doubt: only charges, as the log says; each ran at most once; then settled from here.
    const effectsBefore = await readEffects(db, schema);
    const inDoubt = plan.filter((_, index) => outcomes[index]?.type === "in_doubt");
    for (const run of inDoubt) {
      const outcome = outcomes[plan.indexOf(run)] as Extract<QueuedOutcome, { type: "in_doubt" }>;
      expect(outcome.calls.map((call) => call.toolName)).toEqual(outcome.calls.map(() => "charge"));
      expect(outcome.calls.length).toBeGreaterThan(0);
      expect(inDoubtCalls(await store.read(run.sessionId), agent)).toEqual(outcome.calls);
      for (const call of outcome.calls) {
        const rows = effectsBefore.filter(
          (row) => row.sessionId === run.sessionId && row.toolCallId === call.toolCallId,
        );
        expect(rows.length, `${run.sessionId}/${call.toolCallId}`).toBeLessThanOrEqual(1);
      }
      const settled = await agent.resume(run.sessionId, {
        store,
        deps: { db },
        resolveInDoubt: () => ({ type: "result", result: "abandoned", isError: true }),
      });
      expect(settled.runId).toBe(runIds.get(run.sessionId));
    }

    // Every log: dense, one start (the submission's run) and one end, each call intended once (or re-run) with one result.
    const effects = await readEffects(db, schema);
    const effectsOf = new Map<string, EffectRow[]>();
    for (const row of effects) effectsOf.set(row.sessionId, [...(effectsOf.get(row.sessionId) ?? []), row]);
    const problems: string[] = [];
    let reruns = 0;
    let resumed = 0;
    await inBatches(plan, 16, async (run) => {
      const events = await store.read(run.sessionId);
      for (const problem of logProblems(events, runIds.get(run.sessionId) ?? "?"))
        problems.push(`${run.sessionId}: ${problem}`);
      problems.push(...effectProblems(run.sessionId, events, effectsOf.get(run.sessionId) ?? []));
      for (const call of callsOf(events).values()) reruns += call.intents.filter((intent) => intent.rerun).length;
      resumed += events.filter((event) => event.type === "run_resumed").length;
    });
    expect(problems).toEqual([]);
    expect(fleet.kills.length).toBeGreaterThanOrEqual(3);
    expect(resumed).toBeGreaterThan(0); // some run was taken over from a killed worker

    const wallS = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `fleet failover: ${RUNS} runs, ${WORKERS} workers, ${fleet.kills.length} kills, ${inDoubt.length} in doubt (settled), ` +
        `${resumed} resumes, ${reruns} re-run calls, ${effects.length} effects, wall ${wallS} s, failover ${describeTimes(fleet.failoverTimes())}`,
    );
  }, 600_000);
});
