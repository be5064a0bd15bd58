/**
 * Crash durability: the extended scenario child (12 turns × 3 tool calls on a real store, plus a
 * transfer every third turn that pauses for approval and is approved with edited arguments from this process) is
 * SIGKILLed at random points (seeded), then resumed by the next child, until each session completes.
 * After every kill: the store is intact, seqs have no gap or duplicate, every acknowledged seq is
 * present, no call with a logged result has run again, no effect happened without its committed
 * intent, a non-idempotent tool never ran more often than it was started or explicitly re-run, a
 * transfer only ever ran with the decided arguments, and a resume of a copy of the log completes the
 * run with deps equal to the log's projection.
 */
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decideApproval, pendingApprovalsOf } from "../../src/approvals/approvals.js";
import { ApprovalPendingError } from "../../src/errors/run-errors.js";
import type { SessionEvent } from "../../src/session/events.js";
import { projectDeps } from "../../src/session/projections.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import {
  countByCall,
  DATABASE_URL,
  dropSchema,
  postgresReachable,
  prng,
  runChild,
  seqProblems,
  tempDir,
} from "./harness.js";
import { callsOfTurn, decidedAmount, nestedCallsOf, readEffects, reconcilePolicy, scenarioAgent } from "./scenario.js";

const TURNS = 12;
const ALL_CALLS = Array.from({ length: TURNS }, (_, turn) => callsOfTurn(turn, true)).flat();
const NESTED_CALLS = nestedCallsOf(TURNS);
const NON_IDEMPOTENT = new Set(["charge", "transfer"]);
const ENV = { NOUS_SCENARIO: "extended" };

/** Approves every pending transfer of the session with an edited amount, as a person would from another process. */
async function decideWithEdits(store: SessionStore, sessionId: string): Promise<number> {
  const pending = pendingApprovalsOf(sessionId, await store.read(sessionId));
  for (const approval of pending) {
    const { amount } = approval.args as { amount: number };
    await decideApproval(store, approval, { type: "edit", args: { amount: decidedAmount(amount) } });
  }
  return pending.length;
}

/** A transfer runs only once approved, and only ever with the decided (edited) amount. */
function checkDecidedArgs(events: readonly SessionEvent[], file: string): void {
  const decided = decidedAmounts(events);
  for (const line of readEffects(file)) {
    if (line.tool === "transfer")
      expect(Number(line.key), `${line.toolCallId} amount`).toBe(decided.get(line.toolCallId));
  }
}

/** The amount each transfer was decided to run with, from the log's approval decisions. */
function decidedAmounts(events: readonly SessionEvent[]): Map<string, number> {
  const decided = new Map<string, number>();
  for (const event of events) {
    const data = event.data as { toolCallId?: string; args?: { amount?: number } };
    if (event.type === "approval_decided" && data.toolCallId && data.args?.amount !== undefined) {
      decided.set(data.toolCallId, data.args.amount);
    }
  }
  return decided;
}

interface Backend {
  readonly name: "sqlite" | "pg";
  readonly location: string;
  readonly store: SessionStore;
  readonly integrity?: () => { ok: boolean; messages: readonly string[] };
}

interface ChainStats {
  kills: number;
  completed: number;
  resumeChecks: number;
  /** Approval rounds decided with edits. */
  decisions: number;
  /** Kills that left a nested code-mode call, or an approved-with-edits transfer, started without a result. */
  nestedInDoubt: number;
  editedInDoubt: number;
}

/** The calls (nested ones included) the log shows started and not finished. */
function openCalls(events: readonly SessionEvent[]): { id: string; tool: string; nested: boolean }[] {
  const open = new Map<string, { id: string; tool: string; nested: boolean }>();
  for (const event of events) {
    const data = event.data as { toolCallId?: string; toolName?: string; parentToolCallId?: string };
    if (!data?.toolCallId) continue;
    if (event.type === "tool_call") {
      open.set(data.toolCallId, { id: data.toolCallId, tool: data.toolName ?? "", nested: !!data.parentToolCallId });
    }
    if (event.type === "tool_result" || event.type === "tool_call_result") open.delete(data.toolCallId);
  }
  return [...open.values()];
}

function effectCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readEffects(file)) counts.set(line.toolCallId, (counts.get(line.toolCallId) ?? 0) + 1);
  return counts;
}

/** Checks on the side effects against a log; `reruns` counts explicit rerun decisions per call. */
function checkEffects(events: readonly SessionEvent[], file: string, reruns: ReadonlyMap<string, number>): void {
  const intents = countByCall(events, "tool_call");
  const effects = readEffects(file);
  const charges = new Map<string, number>();
  const keys = new Map<string, Set<string>>();
  checkDecidedArgs(events, file);
  for (const line of effects) {
    if (NON_IDEMPOTENT.has(line.tool)) charges.set(line.toolCallId, (charges.get(line.toolCallId) ?? 0) + 1);
    if (line.tool === "reserve") keys.set(line.toolCallId, (keys.get(line.toolCallId) ?? new Set()).add(line.key));
  }
  for (const [id, count] of charges) {
    // The effect of a non-idempotent call happens only after its intent is committed …
    expect(count, `charge ${id} effects vs intents`).toBeLessThanOrEqual(intents.get(id) ?? 0);
    // … and never more than once unless a decision said to run it again.
    expect(count, `charge ${id} effects vs explicit reruns`).toBeLessThanOrEqual(1 + (reruns.get(id) ?? 0));
  }
  // An idempotent tool sees the same idempotency key every time it runs for one call.
  for (const [id, set] of keys) expect(set.size, `reserve ${id} keys ${[...set]}`).toBe(1);
}

/** The log of a completed run: every call has exactly one result; with reconciliation, one charge each. */
function checkCompleted(events: readonly SessionEvent[], file: string): void {
  expect(events.at(-1)?.type).toBe("run_completed");
  const results = countByCall(events, "tool_result");
  for (const call of ALL_CALLS) expect(results.get(call.id), `results of ${call.id}`).toBe(1);
  const charges = readEffects(file).filter((line) => NON_IDEMPOTENT.has(line.tool));
  expect(charges.map((line) => line.toolCallId).sort()).toEqual(
    [...ALL_CALLS, ...NESTED_CALLS]
      .filter((call) => NON_IDEMPOTENT.has(call.name))
      .map((call) => call.id)
      .sort(),
  );
  // Every nested call of the programs has exactly one recorded result.
  const nestedResults = countByCall(events, "tool_call_result");
  for (const call of NESTED_CALLS) expect(nestedResults.get(call.id), `nested results of ${call.id}`).toBe(1);
  // State comes from the log: one counter step per reserve result (nested ones too), however often reserve re-ran.
  const reserves = [...ALL_CALLS, ...NESTED_CALLS].filter((call) => call.name === "reserve").length;
  expect(projectDeps(events, {})).toEqual({ counter: reserves });
}

/** Resumes a copy of the log (in memory, with a copy of the side effects) to completion. */
async function resumeCopy(events: readonly SessionEvent[], file: string, dir: string, tag: string): Promise<boolean> {
  if (!events.some((event) => event.type === "run_started")) return false;
  if (events.at(-1)?.type === "run_completed") return false;
  const memory = new MemoryStore();
  const copy = events.map(({ sessionId: _ignored, ...event }) => event as SessionEvent);
  await memory.append("copy", copy, { expectedLastSeq: 0 });
  const effects = join(dir, `${tag}.copy.effects`);
  if (existsSync(file)) copyFileSync(file, effects);
  else writeFileSync(effects, "");
  const before = effectCounts(effects);
  const agent = scenarioAgent({ effectsFile: effects, turns: TURNS, extended: true });
  const resume = () =>
    agent.resume("copy", { store: memory, deps: { counter: 0 }, resolveInDoubt: reconcilePolicy(effects) });
  let result = await resume().catch((error: unknown) => error);
  while (result instanceof ApprovalPendingError) {
    await decideWithEdits(memory, "copy");
    result = await resume().catch((error: unknown) => error);
  }
  if (result instanceof Error) throw result;
  const done = result as Awaited<ReturnType<typeof resume>>;
  expect(done.output).toBe(`done after ${TURNS} turns`);
  const log = await memory.read("copy");
  expect(done.deps).toEqual(projectDeps(log, {}));
  checkCompleted(log, effects);
  checkDecidedArgs(log, effects);
  // Calls whose result was logged before the kill did not run again.
  const after = effectCounts(effects);
  for (const [id] of countByCall(events, "tool_result")) expect(after.get(id), id).toBe(before.get(id));
  return true;
}

async function crashChain(backend: Backend, seed: number, kills: number, dir: string): Promise<ChainStats> {
  const random = prng(seed);
  const stats: ChainStats = {
    kills: 0,
    completed: 0,
    resumeChecks: 0,
    decisions: 0,
    nestedInDoubt: 0,
    editedInDoubt: 0,
  };
  let round = 0;
  let sessionId = `${backend.name}-seed${seed}-${round}`;
  let effects = join(dir, `${sessionId}.effects`);
  let reruns = new Map<string, number>();
  /** Effect count of each call when its result was first seen in the log: it must never change. */
  let frozen = new Map<string, number>();
  while (stats.kills < kills) {
    // A child runs until the next approval pause: at most about 18 commits. Kill within 24, so about a
    // quarter of the children reach the pause or the end; sometimes by time instead.
    const plan =
      random() < 0.85 ? { afterAcks: 1 + Math.floor(random() * 24) } : { afterMs: Math.floor(random() * 400) };
    const outcome = await runChild({
      args: ["auto", backend.name, backend.location, sessionId, effects, String(TURNS), "reconcile"],
      // A killed child's lease holds the session until it expires: the next child waits for that.
      env: { ...ENV, NOUS_LEASE_TTL_MS: "250", NOUS_WAIT_LEASE: "1" },
      kill: plan,
    });
    for (const line of outcome.lines) {
      const decided = /^DECIDE (\S+) rerun$/.exec(line);
      if (decided?.[1]) reruns.set(decided[1], (reruns.get(decided[1]) ?? 0) + 1);
    }
    const events = await backend.store.read(sessionId);
    if (backend.integrity) {
      const report = backend.integrity();
      expect(report.ok, report.messages.join("; ")).toBe(true);
    }
    expect(seqProblems(events)).toBeUndefined();
    for (const seq of outcome.acked)
      expect(seq, `acknowledged seq ${seq} of ${sessionId}`).toBeLessThanOrEqual(events.length);
    checkEffects(events, effects, reruns);
    const counts = effectCounts(effects);
    for (const id of [
      ...countByCall(events, "tool_result").keys(),
      ...countByCall(events, "tool_call_result").keys(),
    ]) {
      const seen = frozen.get(id);
      if (seen === undefined) frozen.set(id, counts.get(id) ?? 0);
      else expect(counts.get(id) ?? 0, `${id} ran again after its result was logged`).toBe(seen);
    }
    if (outcome.killed) {
      stats.kills += 1;
      const open = openCalls(events);
      if (open.some((call) => call.nested)) stats.nestedInDoubt += 1;
      if (open.some((call) => call.tool === "transfer")) stats.editedInDoubt += 1;
      if (await resumeCopy(events, effects, dir, `${sessionId}-k${stats.kills}`)) stats.resumeChecks += 1;
    } else if (outcome.last?.startsWith("PENDING")) {
      expect(await decideWithEdits(backend.store, sessionId)).toBeGreaterThan(0);
      stats.decisions += 1;
    } else {
      expect(outcome.last).toBe(`DONE done after ${TURNS} turns`);
      const deps = outcome.lines.find((line) => line.startsWith("DEPS "));
      expect(JSON.parse(deps?.slice(5) ?? "null"), "final deps").toEqual(projectDeps(events, {}));
    }
    if (events.at(-1)?.type === "run_completed") {
      checkCompleted(events, effects);
      stats.completed += 1;
      round += 1;
      sessionId = `${backend.name}-seed${seed}-${round}`;
      effects = join(dir, `${sessionId}.effects`);
      reruns = new Map();
      frozen = new Map();
    }
  }
  return stats;
}

/** Runs chains for `seeds`, `parallel` at a time, `killsPerSeed` kills each. */
async function runSeeds(backend: Backend, seeds: readonly number[], killsPerSeed: number, parallel: number) {
  const dir = tempDir(`crash-${backend.name}`);
  const totals: ChainStats = {
    kills: 0,
    completed: 0,
    resumeChecks: 0,
    decisions: 0,
    nestedInDoubt: 0,
    editedInDoubt: 0,
  };
  const queue = [...seeds];
  const worker = async () => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const stats = await crashChain(backend, seed, killsPerSeed, dir);
      totals.kills += stats.kills;
      totals.completed += stats.completed;
      totals.resumeChecks += stats.resumeChecks;
      totals.decisions += stats.decisions;
      totals.nestedInDoubt += stats.nestedInDoubt;
      totals.editedInDoubt += stats.editedInDoubt;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return totals;
}

/** `npm run test:crash-long` sets NOUS_CRASH_SCALE (more seeds, more kills); CI runs scale 1. */
const SCALE = Math.max(1, Number(process.env.NOUS_CRASH_SCALE ?? 1));
const seeds = (first: number, count: number) => Array.from({ length: count * SCALE }, (_, index) => first + index);
const LIMIT = 480_000 * SCALE;

describe("crash durability (SIGKILL at random points)", () => {
  it(`SQLite: ${200 * SCALE} kills keep the log intact and every run completes`, { timeout: LIMIT }, async () => {
    const dir = tempDir("crash-sqlite-db");
    const path = join(dir, "sessions.db");
    const store = new SqliteStore({ path });
    try {
      const totals = await runSeeds(
        { name: "sqlite", location: path, store, integrity: () => store.integrityCheck() },
        seeds(1, 8),
        25,
        2,
      );
      console.log(`sqlite crash: ${JSON.stringify(totals)}`);
      expect(totals.kills).toBe(200 * SCALE);
      expect(totals.resumeChecks).toBeGreaterThan(100 * SCALE);
      // The kills land inside nested code-mode calls and inside approved-with-edits calls too.
      expect(totals.nestedInDoubt).toBeGreaterThan(0);
      expect(totals.editedInDoubt).toBeGreaterThan(0);
      expect(totals.completed).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  describe("PostgreSQL", () => {
    const schema = `nous_crash_${process.pid}_${Date.now()}`;
    let reachable = false;
    afterAll(async () => {
      if (reachable) await dropSchema(schema);
    });
    it(`${52 * SCALE} kills keep the log intact and every run completes`, { timeout: LIMIT }, async (context) => {
      reachable = await postgresReachable();
      // postgresReachable throws under CI; only a developer machine without a server skips here.
      if (!reachable) return context.skip();
      const store = await PostgresStore.connect(DATABASE_URL, { schema });
      try {
        const totals = await runSeeds({ name: "pg", location: schema, store }, seeds(101, 4), 13, 2);
        console.log(`postgres crash: ${JSON.stringify(totals)}`);
        expect(totals.kills).toBe(52 * SCALE);
        expect(totals.resumeChecks).toBeGreaterThan(20 * SCALE);
      } finally {
        await store.close();
      }
    });
  });
});
