/**
 * Helpers of the fleet acceptance tests: real `nous worker` processes on the fixture agent
 * (src/fleet/test-support/fleet-agent.mjs), the fixture loaded in this process to submit and read
 * back, the effects table its tools write, and the checks every session log must pass.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type pg from "pg";
import type { Agent } from "../../src/agent/agent.js";
import type { RunQueue } from "../../src/fleet/run-queue.js";
import type { SessionEvent } from "../../src/session/events.js";
import type { PostgresStore } from "../../src/store/postgres-store.js";
import { DATABASE_URL } from "../../src/store/test-support/postgres-server.js";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtureFile = join(repoRoot, "src", "fleet", "test-support", "fleet-agent.mjs");
const cli = join(repoRoot, "dist", "cli", "main.js");

/** The environment the workers and this process share: one schema and one queue per test file. */
export function fleetEnv(name: string): Record<string, string> {
  const unique = `${name}_${process.pid}_${Date.now().toString(36)}`;
  return {
    DATABASE_URL,
    FLEET_SCHEMA: `nous_${unique}`,
    FLEET_QUEUE: unique.replaceAll("_", "-"),
    FLEET_LEASE_MS: "2000",
    FLEET_STALLED_MS: "500",
  };
}

/** State deps of a fixture run (from the submit) and live ones (a pool, from the worker or the test). */
export interface FleetDeps {
  readonly sleepMs?: number;
  readonly db?: pg.Pool;
}

export interface FleetFixture {
  readonly agent: Agent<FleetDeps>;
  readonly queue: RunQueue;
  readonly store: PostgresStore;
}

/** Imports the fixture agent with `env` set first (it reads its schema and queue at import). */
export async function loadFixture(env: Record<string, string>): Promise<FleetFixture> {
  Object.assign(process.env, env);
  const mod = (await import(pathToFileURL(fixtureFile).href)) as {
    default: Agent<FleetDeps>;
    queue: RunQueue;
    store: PostgresStore;
  };
  return { agent: mod.default, queue: mod.queue, store: mod.store };
}

/** Removes the queue's jobs and the fleet's own keys of it (latest run per session, tenant counters). */
export async function clearQueue(queue: RunQueue): Promise<void> {
  await queue.engine.obliterate({ force: true });
  const redis = queue.connection();
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${queue.prefix}:*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

export async function createEffects(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `create table if not exists "${schema}".effects (id bigserial primary key, session_id text, tool_call_id text, tool text, pid int, at timestamptz default now())`,
  );
}

export interface EffectRow {
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly tool: string;
  readonly pid: number;
  readonly at: number;
}

export async function readEffects(pool: pg.Pool, schema: string): Promise<EffectRow[]> {
  const { rows } = await pool.query<{ session_id: string; tool_call_id: string; tool: string; pid: number; at: Date }>(
    `select session_id, tool_call_id, tool, pid, at from "${schema}".effects order by id`,
  );
  return rows.map((row) => ({
    sessionId: row.session_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    pid: row.pid,
    at: row.at.getTime(),
  }));
}

/** One JSON line a worker printed, with the time this process read it. */
export interface WorkerLine {
  readonly type: string;
  readonly pid: number;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly error?: string;
  readonly code?: string;
  readonly outcome?: { readonly type: string };
  readonly receivedAt: number;
}

/** A `nous worker --json` process on the fixture agent. */
export class FleetWorker {
  readonly process: ChildProcess;
  readonly lines: WorkerLine[] = [];
  readonly exited: Promise<number | null>;
  #stderr = "";
  #listeners = new Set<() => void>();

  constructor(env: Record<string, string>, concurrency: number) {
    this.process = spawn(
      process.execPath,
      [cli, "worker", "--agent", fixtureFile, "--concurrency", String(concurrency), "--json"],
      { cwd: repoRoot, env: { ...process.env, ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let buffered = "";
    this.process.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      const receivedAt = Date.now();
      for (const part of parts) {
        if (part.trim() === "") continue;
        this.lines.push({ ...(JSON.parse(part) as Omit<WorkerLine, "receivedAt">), receivedAt });
      }
      for (const listener of this.#listeners) listener();
    });
    this.process.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    this.exited = new Promise((resolve) => this.process.once("exit", (code) => resolve(code)));
    void this.exited.then(() => {
      for (const listener of this.#listeners) listener();
    });
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** What the worker wrote on stderr lately (for failure messages). */
  get stderr(): string {
    return this.#stderr;
  }

  /** The first line (already read or to come) matching `match`; rejects on exit or after `timeoutMs`. */
  waitFor(match: (line: WorkerLine) => boolean, timeoutMs = 30_000): Promise<WorkerLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`worker ${this.pid}: no such line in ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const line = this.lines.find(match);
        if (line !== undefined) done(undefined, line);
        else if (!this.alive) done(new Error(`worker ${this.pid} exited first: ${this.#stderr}`));
      };
      const done = (error: Error | undefined, line?: WorkerLine) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        if (error === undefined && line !== undefined) resolve(line);
        else reject(error);
      };
      this.#listeners.add(check);
      check();
    });
  }

  ready(timeoutMs = 30_000): Promise<WorkerLine> {
    return this.waitFor((line) => line.type === "ready", timeoutMs);
  }

  /** Sends `signal`; resolves once the worker exited when the signal ends it. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (!this.alive) return;
    this.process.kill(signal);
    if (signal === "SIGKILL") await this.exited;
  }
}

/** SIGKILLs every worker still alive (a stopped one too) and waits for their exits. */
export async function killAll(workers: Iterable<FleetWorker>): Promise<void> {
  await Promise.all(
    [...workers].map(async (worker) => {
      await worker.kill("SIGKILL");
    }),
  );
}

/** The seeded PRNG the crash campaigns use. */
export { prng } from "../durability/harness.js";

export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The top-level tool calls of a log: each call's intents (in order), its results and its tool. */
export interface LoggedCall {
  readonly toolName: string;
  readonly intents: { readonly seq: number; readonly rerun: boolean }[];
  readonly results: { readonly seq: number; readonly isError: boolean }[];
}

export function callsOf(events: readonly SessionEvent[]): Map<string, LoggedCall> {
  const calls = new Map<string, LoggedCall>();
  for (const event of events) {
    if (event.type !== "tool_call" && event.type !== "tool_result") continue;
    const data = event.data as { toolCallId: string; toolName: string; rerun?: boolean; isError?: boolean };
    const call = calls.get(data.toolCallId) ?? { toolName: data.toolName, intents: [], results: [] };
    calls.set(data.toolCallId, call);
    if (event.type === "tool_call") call.intents.push({ seq: event.seq, rerun: data.rerun === true });
    else call.results.push({ seq: event.seq, isError: data.isError === true });
  }
  return calls;
}

/**
 * What is wrong with a finished session's log: seqs not 1…n, not exactly one run_started (with the
 * submission's run id) and one run_completed (the last event), a call re-intended without `rerun`,
 * or a call without exactly one result.
 */
export function logProblems(events: readonly SessionEvent[], runId: string): string[] {
  const problems: string[] = [];
  for (const [index, event] of events.entries()) {
    if (event.seq !== index + 1) {
      problems.push(`event ${index} has seq ${event.seq}`);
      break;
    }
  }
  const started = events.filter((event) => event.type === "run_started");
  if (started.length !== 1) problems.push(`${started.length} run_started`);
  const startedRun = (started[0]?.data as { runId?: string } | undefined)?.runId;
  if (startedRun !== runId) problems.push(`run_started.runId ${startedRun} ≠ submitted ${runId}`);
  const completed = events.filter((event) => event.type === "run_completed");
  if (completed.length !== 1) problems.push(`${completed.length} run_completed`);
  if (events.at(-1)?.type !== "run_completed") problems.push(`last event is ${events.at(-1)?.type}`);
  for (const [id, call] of callsOf(events)) {
    if (call.intents[0]?.rerun !== false || call.intents.slice(1).some((intent) => !intent.rerun)) {
      problems.push(`${id}: intents ${JSON.stringify(call.intents)}`);
    }
    if (call.results.length !== 1) problems.push(`${id}: ${call.results.length} tool_result`);
  }
  return problems;
}
