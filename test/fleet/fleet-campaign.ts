/**
 * The failover campaign's moving parts: the seeded run plan, a fleet of workers of which one is
 * SIGKILLed and replaced every 2–3 s, the failover times read from the workers' JSON lines, and the
 * effect checks against each session's log.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SessionEvent } from "../../src/session/events.js";
import { callsOf, type EffectRow, FleetWorker, percentile, type WorkerLine } from "./fleet-harness.js";

export interface PlannedRun {
  readonly sessionId: string;
  readonly prompt: string;
  readonly sleepMs: number;
  readonly charge: boolean;
}

/** Mostly 2–4 idempotent lookups of 20–60 ms; about one run in ten charges (not idempotent) at some step. */
export function planRuns(count: number, random: () => number, prefix: string): PlannedRun[] {
  return Array.from({ length: count }, (_, index) => {
    const steps = 2 + Math.floor(random() * 3);
    const chargeAt = random() < 0.1 ? 1 + Math.floor(random() * steps) : 0;
    const sleepMs = 20 + Math.floor(random() * 41);
    return {
      sessionId: `${prefix}-${index}`,
      prompt: `steps=${steps} charge=${chargeAt}`,
      sleepMs,
      charge: chargeAt > 0,
    };
  });
}

/** A kill: when, whom, and the runs that were going in the victim then. */
export interface Kill {
  readonly at: number;
  readonly pid: number;
  readonly running: readonly string[];
}

/** Runs a worker had started and not yet ended, postponed or errored, by its JSON lines. */
export function runningIn(worker: FleetWorker): string[] {
  const running = new Set<string>();
  for (const line of worker.lines) {
    if (line.runId === undefined) continue;
    if (line.type === "started") running.add(line.runId);
    else running.delete(line.runId);
  }
  return [...running];
}

/** `size` workers; `killLoop` SIGKILLs a random one every 2–3 s and starts another in its place. */
export class Fleet {
  readonly all: FleetWorker[] = [];
  readonly slots: FleetWorker[] = [];
  readonly kills: Kill[] = [];

  constructor(
    readonly env: Record<string, string>,
    readonly concurrency: number,
    readonly random: () => number,
  ) {}

  start(): FleetWorker {
    const worker = new FleetWorker(this.env, this.concurrency);
    this.all.push(worker);
    return worker;
  }

  async fill(size: number): Promise<void> {
    while (this.slots.length < size) this.slots.push(this.start());
    await Promise.all(this.slots.map((worker) => worker.ready()));
  }

  #stopped = false;
  #loop: Promise<void> = Promise.resolve();

  /** Kills until `enough()` says so (checked before each kill) or `stop()`. */
  killLoop(enough: () => boolean): Promise<void> {
    this.#loop = this.#kill(() => this.#stopped || enough());
    return this.#loop;
  }

  /** Ends the kill loop (a test that failed half-way) and waits for it. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop.catch(() => undefined);
  }

  async #kill(enough: () => boolean): Promise<void> {
    while (!enough()) {
      await sleep(2_000 + this.random() * 1_000);
      if (enough()) return;
      const index = Math.floor(this.random() * this.slots.length);
      const victim = this.slots[index] as FleetWorker;
      const running = runningIn(victim);
      const at = Date.now();
      await victim.kill("SIGKILL");
      this.kills.push({ at, pid: victim.pid, running });
      this.slots[index] = this.start();
    }
  }

  /** Every JSON line of every worker, in the order they were read. */
  lines(): WorkerLine[] {
    return this.all.flatMap((worker) => worker.lines).sort((a, b) => a.receivedAt - b.receivedAt);
  }

  /** For each run going in a killed worker: from the kill to its next `started` in another worker. */
  failoverTimes(): number[] {
    const starts = this.lines().filter((line) => line.type === "started");
    const times: number[] = [];
    for (const kill of this.kills) {
      for (const runId of kill.running) {
        const next = starts.find((line) => line.runId === runId && line.receivedAt > kill.at);
        if (next !== undefined) times.push(next.receivedAt - kill.at);
      }
    }
    return times;
  }

  /** Distinct runs some worker reported ended. */
  endedRuns(): number {
    const ended = new Set<string>();
    for (const worker of this.all) {
      for (const line of worker.lines) if (line.type === "ended" && line.runId) ended.add(line.runId);
    }
    return ended.size;
  }
}

/**
 * What is wrong with the effects of one session: a call that ran more often than the log has
 * intents for it, a charge that ran twice, a call with a successful result but no effect, or an
 * effect the log has no intent for.
 */
export function effectProblems(
  sessionId: string,
  events: readonly SessionEvent[],
  rows: readonly EffectRow[],
): string[] {
  const problems: string[] = [];
  const calls = callsOf(events);
  const byCall = new Map<string, EffectRow[]>();
  for (const row of rows) byCall.set(row.toolCallId, [...(byCall.get(row.toolCallId) ?? []), row]);
  for (const [id, effects] of byCall) {
    const call = calls.get(id);
    if (call === undefined) problems.push(`${sessionId}/${id}: ${effects.length} effect(s), no intent in the log`);
    else if (effects.some((row) => row.tool !== call.toolName))
      problems.push(`${sessionId}/${id}: effect of another tool`);
  }
  for (const [id, call] of calls) {
    const effects = byCall.get(id)?.length ?? 0;
    if (effects > call.intents.length) {
      problems.push(`${sessionId}/${id}: ${effects} effects for ${call.intents.length} intent(s)`);
    }
    if (call.toolName === "charge" && effects > 1) problems.push(`${sessionId}/${id}: charged ${effects} times`);
    if (call.results.some((result) => !result.isError) && effects === 0) {
      problems.push(`${sessionId}/${id}: a successful result without an effect`);
    }
  }
  return problems;
}

export function describeTimes(times: readonly number[]): string {
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  return p50 === undefined ? "n/a" : `p50 ${p50} ms, p99 ${p99} ms (${times.length} runs)`;
}

/** Maps `items` through `task`, `width` at a time, in order. */
export async function inBatches<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
