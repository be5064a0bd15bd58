// The worker fleet, end to end: S queued sessions through 1, 2 and 4 `nous worker` processes
// (`--concurrency 16`), PostgreSQL store (a throwaway schema) and Redis, against the mock model
// server of bench/peers in its own process; then failover after kill -9. See bench/README.md.
//
//   npm run build && node bench/fleet.bench.mjs [--quick]
//
// Env: FLEET_BENCH_SESSIONS (10,000; --quick 1,000), FLEET_BENCH_WORKERS ("1,2,4"),
// FLEET_BENCH_KILLS (kills per failover series: 10; --quick 4), FLEET_BENCH_STEADY_S (20; --quick 8),
// FLEET_BENCH_GROUP_COMMIT (1: the PostgreSQL store's group commit, in the workers; 0: off),
// DATABASE_URL, NOUS_REDIS_URL.
import { writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Redis from "ioredis";
import pg from "pg";
import {
  fmt,
  mockStats,
  paced,
  pool,
  quantile,
  root,
  startMockServer,
  until,
  WorkerProcess,
} from "./fleet-support.mjs";

const quick = process.argv.includes("--quick");
const sessions = quick ? 1_000 : Number(process.env.FLEET_BENCH_SESSIONS ?? 10_000);
const workerCounts = (process.env.FLEET_BENCH_WORKERS ?? "1,2,4").split(",").map(Number);
const kills = Number(process.env.FLEET_BENCH_KILLS ?? (quick ? 4 : 10));
const concurrency = 16;
const steadySeconds = Number(process.env.FLEET_BENCH_STEADY_S ?? (quick ? 8 : 20));
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `fleet_bench_${process.pid}`;
process.env.FLEET_BENCH_SCHEMA = schema;
process.env.FLEET_BENCH_GROUP_COMMIT ??= "1"; // the store's group commit, in the workers too
const groupCommit = process.env.FLEET_BENCH_GROUP_COMMIT === "1";
const agentFile = join(root, "bench", "fleet-agent.mjs");
const { connectStore, fleetAgent } = await import("./fleet-agent.mjs");

const log = (line) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const startedAt = Date.now();
const loadBefore = os.loadavg();
const server = await startMockServer();
const store = await connectStore();
const redis = new Redis(process.env.NOUS_REDIS_URL ?? "redis://127.0.0.1:6379");
let phase = 0;

/** Submits and runs through worker processes on a fresh queue; tracks every run by id. */
class Fleet {
  constructor(lease = {}) {
    this.name = `fleet-bench-${process.pid}-${++phase}`;
    this.lease = lease;
    this.agent = fleetAgent({ store, name: this.name, baseURL: server.baseURL, ...lease });
    this.workers = [];
    this.runs = new Map(); // runId → { starts: [{ pid, at, waitedMs }], ended?: { pid, at, outcome } }
    this.errors = [];
  }

  run(runId) {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { starts: [] };
      this.runs.set(runId, run);
    }
    return run;
  }

  submit(prompt = "Add 1 and 2", deps = {}) {
    return this.agent.submit(prompt, { deps });
  }

  spawn() {
    const env = {
      FLEET_BENCH_QUEUE: this.name,
      FLEET_BENCH_BASE_URL: server.baseURL,
      FLEET_BENCH_LEASE_MS: String(this.lease.leaseTtlMs ?? ""),
      FLEET_BENCH_STALLED_MS: String(this.lease.stalledCheckMs ?? ""),
    };
    const worker = new WorkerProcess({
      agentFile,
      concurrency,
      env,
      onEvent: (event, at, { pid }) => {
        if (event.type === "started") this.run(event.runId).starts.push({ pid, at, waitedMs: event.waitedMs });
        else if (event.type === "ended") this.run(event.runId).ended = { pid, at, outcome: event.outcome };
        else if (event.type === "postponed") {
          const last = this.run(event.runId).starts.at(-1);
          if (last !== undefined) last.postponed = true;
        } else if (event.type === "error") this.errors.push(event.error);
      },
    });
    this.workers.push(worker);
    return worker;
  }

  ended(runIds) {
    return runIds.filter((runId) => this.runs.get(runId)?.ended !== undefined).length;
  }

  async close() {
    await Promise.all(this.workers.map((worker) => worker.stop()));
    await this.agent.queue.engine.obliterate({ force: true });
    for await (const keys of redis.scanStream({ match: `nous:${this.name}:*`, count: 1_000 })) {
      if (keys.length > 0) await redis.del(...keys);
    }
    await this.agent.queue.close();
  }
}

/** Backlog: all S submitted first, then N workers started; then a steady submitter at 70 %. */
async function throughput(count) {
  const fleet = new Fleet();
  const before = await mockStats(server.baseURL);
  const ids = new Array(sessions);
  const submitStart = performance.now();
  await pool(sessions, 64, async (i) => {
    ids[i] = (await fleet.submit()).runId;
  });
  const submitPerS = sessions / ((performance.now() - submitStart) / 1000);
  log(`${count} worker(s): ${sessions} submitted (${fmt(submitPerS)}/s); starting workers`);
  const spawnAt = Date.now();
  for (let i = 0; i < count; i++) fleet.spawn();
  await Promise.all(fleet.workers.map((worker) => worker.ready));
  const readyMs = Math.max(...fleet.workers.map((worker) => worker.readyAt)) - spawnAt;
  await until(
    () => fleet.ended(ids) === sessions,
    600_000,
    () => `${fleet.ended(ids)}/${sessions} ended; errors ${fleet.errors.slice(0, 3)}`,
  );
  const backlog = ids.map((runId) => fleet.runs.get(runId));
  const firstStart = Math.min(...backlog.map((run) => run.starts[0].at));
  const lastEnd = Math.max(...backlog.map((run) => run.ended.at));
  const runsPerS = sessions / ((lastEnd - firstStart) / 1000);
  const fromSpawnPerS = sessions / ((lastEnd - spawnAt) / 1000);
  const backlogWaits = backlog.map((run) => run.starts[0].waitedMs);
  log(`${count} worker(s): ${fmt(runsPerS)} runs/s; steady submitter at ${fmt(runsPerS * 0.7)}/s`);

  const steadyCount = Math.round(runsPerS * 0.7 * steadySeconds);
  const steadyIds = [];
  await paced(steadyCount, runsPerS * 0.7, async () => {
    steadyIds.push((await fleet.submit()).runId);
  });
  await until(
    () => fleet.ended(steadyIds) === steadyCount,
    120_000,
    () => `${fleet.ended(steadyIds)}/${steadyCount} steady runs ended`,
  );
  const steadyWaits = steadyIds.map((runId) => fleet.runs.get(runId).starts[0].waitedMs);
  const peaks = fleet.workers.map((worker) => worker.peakMb());
  const all = [...ids, ...steadyIds].map((runId) => fleet.runs.get(runId));
  const notCompleted = all.filter((run) => run.ended.outcome.type !== "completed").length;
  const restarted = all.filter((run) => run.starts.length > 1).length;
  const errors = fleet.errors.length;
  await fleet.close();
  const after = await mockStats(server.baseURL);
  const requests = after.requests - before.requests;
  const rejected = after.rejected - before.rejected;
  if (notCompleted > 0 || rejected > 0 || requests !== 2 * all.length || errors > 0) {
    log(
      `CHECK FAILED: ${notCompleted} not completed, ${requests} requests for ${all.length} runs, ${rejected} rejected`,
    );
  }
  return {
    workers: count,
    submitPerS,
    readyMs,
    runsPerS,
    fromSpawnPerS,
    backlogP50: quantile(backlogWaits, 0.5),
    backlogP99: quantile(backlogWaits, 0.99),
    steadyRate: runsPerS * 0.7,
    steadyRuns: steadyCount,
    steadyP50: quantile(steadyWaits, 0.5),
    steadyP99: quantile(steadyWaits, 0.99),
    peakMb: Math.max(...peaks),
    meanPeakMb: peaks.reduce((a, b) => a + b, 0) / peaks.length,
    notCompleted,
    restarted,
    requests,
    rejected,
    errors,
  };
}

/**
 * Failover: 2 workers, a steady stream of 2-second runs; kill -9 one worker (a fresh one replaces
 * it at once), time from the kill to the start, on another worker, of the attempt that completes
 * each run the killed worker had going.
 */
async function failover(lease) {
  const fleet = new Fleet(lease);
  fleet.spawn();
  fleet.spawn();
  await Promise.all(fleet.workers.map((worker) => worker.ready));
  let stop = false;
  const streaming = paced(
    1e9,
    5,
    () => fleet.submit("Add 1 and 2, slowly", { sleepMs: 2_000 }),
    () => stop,
  );
  const takeovers = [];
  const firstPerKill = [];
  const ttl = lease.leaseTtlMs ?? 10_000;
  for (let k = 0; k < kills; k++) {
    const victim = fleet.workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)[
      k % 2
    ];
    await sleep(Math.max(0, victim.readyAt + 3_000 - Date.now()) + 500 + Math.random() * 500);
    const active = [...fleet.runs]
      .filter(
        ([, run]) => run.ended === undefined && run.starts.at(-1)?.pid === victim.pid && !run.starts.at(-1).postponed,
      )
      .map(([runId]) => runId);
    const killedAt = Date.now();
    await victim.kill9();
    fleet.workers.splice(fleet.workers.indexOf(victim), 1);
    fleet.spawn();
    await until(
      () => fleet.ended(active) === active.length,
      ttl * 3 + 15_000,
      () => `${fleet.ended(active)}/${active.length} runs of the killed worker ended`,
    );
    const times = active.map((runId) => {
      const run = fleet.runs.get(runId);
      const last = run.starts.filter((start) => start.at <= run.ended.at && !start.postponed).at(-1);
      if (last.pid === victim.pid || run.ended.outcome.type !== "completed") {
        log(`CHECK FAILED: run ${runId} ${run.ended.outcome.type} on ${last.pid}`);
      }
      return last.at - killedAt;
    });
    takeovers.push(...times);
    firstPerKill.push(Math.min(...times));
    log(`failover ttl ${ttl}: kill ${k + 1}/${kills}: ${active.length} runs, first ${Math.min(...times)} ms`);
  }
  stop = true;
  await streaming;
  await fleet.close();
  return {
    leaseTtlMs: ttl,
    stalledCheckMs: fleet.agent.queue.stalledCheckMs,
    kills,
    runs: takeovers.length,
    firstP50: quantile(firstPerKill, 0.5),
    firstP99: quantile(firstPerKill, 0.99),
    allP50: quantile(takeovers, 0.5),
    allP99: quantile(takeovers, 0.99),
    max: Math.max(...takeovers),
  };
}

const results = [];
const failovers = [];
const versions = {};
try {
  for (const count of workerCounts) results.push(await throughput(count));
  failovers.push(await failover({}));
  failovers.push(await failover({ leaseTtlMs: 2_000, stalledCheckMs: 500 }));
} finally {
  server.stop();
  await store.close();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const { rows } = await admin.query("SHOW server_version");
  versions.postgres = rows[0].server_version;
  await admin.end();
  versions.redis = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1];
  redis.disconnect();
}

const cpu = os.cpus();
const machine =
  `${cpu.length} × ${cpu[0]?.model.trim()}, ${os.platform()} ${os.release()}, Node ${process.version}, ` +
  `PostgreSQL ${versions.postgres}, Redis ${versions.redis}; load average ${loadBefore.map((n) => n.toFixed(2)).join(" ")} ` +
  `before, ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")} after`;
const lines = [
  `# Fleet benchmark (${quick ? "--quick" : "full"}, ${new Date().toISOString().slice(0, 10)})`,
  "",
  `Machine: ${machine}.`,
  "",
  `${fmt(sessions)} sessions queued, then run by N \`nous worker --concurrency ${concurrency}\` processes; ` +
    "each run = 2 model requests (a tool call, then the answer) to the mock server and a PostgreSQL-logged session " +
    `(store group commit ${groupCommit ? "on" : "off"}). ` +
    `Steady: a submitter at 70 % of the measured throughput for ${steadySeconds} s on the same workers.`,
  "",
  "| workers | submit /s | runs/s | runs/s incl. process start | queue-to-start p50 / p99, backlog | steady: rate, runs | queue-to-start p50 / p99, steady | peak RSS per worker (max / mean) |",
  "|--:|--:|--:|--:|--:|--:|--:|--:|",
  ...results.map(
    (r) =>
      `| ${r.workers} | ${fmt(r.submitPerS)} | ${fmt(r.runsPerS)} | ${fmt(r.fromSpawnPerS)} | ` +
      `${fmt(r.backlogP50)} / ${fmt(r.backlogP99)} ms | ${fmt(r.steadyRate)}/s, ${fmt(r.steadyRuns)} | ` +
      `${fmt(r.steadyP50)} / ${fmt(r.steadyP99)} ms | ${fmt(r.peakMb)} / ${fmt(r.meanPeakMb)} MB |`,
  ),
  "",
  `Checks: ${results.map((r) => `${r.workers}w: ${r.requests} requests, ${r.rejected} rejected, ${r.notCompleted} not completed, ${r.restarted} started twice, ${r.errors} worker errors`).join("; ")}.`,
  "",
  "Failover after kill -9 (2 workers, runs of ≈ 2 s submitted at 5/s; the killed worker is replaced at once): " +
    "time from the kill to the start, on another worker, of the attempt that completed a run the killed worker had going.",
  "",
  "| leaseTtlMs / stalledCheckMs | kills | runs taken over | first run per kill p50 / p99 | every run p50 / p99 / max |",
  "|--|--:|--:|--:|--:|",
  ...failovers.map(
    (f) =>
      `| ${fmt(f.leaseTtlMs)} / ${fmt(f.stalledCheckMs)} | ${f.kills} | ${f.runs} | ${fmt(f.firstP50)} / ${fmt(f.firstP99)} ms | ` +
      `${fmt(f.allP50)} / ${fmt(f.allP99)} / ${fmt(f.max)} ms |`,
  ),
  "",
  `Total time ${fmt((Date.now() - startedAt) / 1000)} s.`,
];
const report = lines.join("\n");
console.log(report);
writeFileSync(join(root, "bench", quick ? "fleet-results.quick.md" : "fleet-results.md"), `${report}\n`);
