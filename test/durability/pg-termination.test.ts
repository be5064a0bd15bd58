/**
 * Acceptance (issue 12, item 7): PostgreSQL connections terminated (`pg_terminate_backend`) at random
 * points of 50 runs. A child process runs the durability scenario on PostgresStore; this process
 * watches its commits and, at seeded random commit counts, terminates every backend of the child's
 * pools. The child must never die, and every run a termination affected must resume to completion:
 * seqs dense, one result per tool call, the non-idempotent effect exactly once per call, deps = the
 * fold of the log.
 */
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { projectDeps } from "../../src/session/projections.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import { runScript } from "../../src/test-support/node-script.js";
import {
  callIdOf,
  countByCall,
  DATABASE_URL,
  dropSchema,
  postgresReachable,
  prng,
  seqProblems,
  tempDir,
} from "./harness.js";
import { callsOfTurn, readEffects } from "./scenario.js";

const RUNS = 50;
const TURNS = 6;
const SEED = 7;
/** About how many commits one run makes: the start, an intent per call, one per turn, the end. */
const COMMITS_PER_RUN = 2 + TURNS * 4;
const ALL_CALLS = Array.from({ length: TURNS }, (_, turn) => callsOfTurn(turn)).flat();
const child = join(import.meta.dirname, "pg-termination-child.ts");

interface RunReport {
  readonly index: number;
  readonly steps: readonly string[];
  readonly failures: readonly {
    during: string;
    operation: string;
    cause: string;
    committing?: string;
    landed?: boolean;
  }[];
}

interface Kill {
  readonly run: number;
  readonly afterAck: number;
  /** Each terminated backend: its state and (the start of) its current or last query. */
  readonly backends: readonly { state: string; query: string }[];
}

const reachable = await postgresReachable();
const schema = `nous_pgkill_${process.pid}`;

afterAll(async () => {
  if (reachable) await dropSchema(schema);
});

/** Counts `key(item)` over `items`, as a sorted object (for the printed report). */
function tally<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([left], [right]) => left.localeCompare(right)));
}

describe.runIf(reachable)("PostgreSQL connections terminated at random points of 50 runs", () => {
  it("the process never dies; every affected run resumes to completion", { timeout: 240_000 }, async () => {
    const random = prng(SEED);
    const dir = tempDir("pg-termination");
    const killer = new pg.Client({ connectionString: DATABASE_URL });
    await killer.connect();
    let appName = "";
    let run = -1;
    let acks = 0;
    let targets: number[] = [];
    const kills: Kill[] = [];
    let killing = Promise.resolve();
    const terminate = async (target: Kill["run"], afterAck: number) => {
      const { rows } = await killer.query<{ state: string | null; query: string; terminated: boolean }>(
        "SELECT state, left(query, 40) AS query, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1",
        [appName],
      );
      const backends = rows
        .filter((row) => row.terminated)
        .map((row) => ({ state: row.state ?? "?", query: row.query.replace(/\s+/g, " ") }));
      kills.push({ run: target, afterAck, backends });
    };
    let outcome: Awaited<ReturnType<typeof runScript>>;
    try {
      outcome = await runScript(child, {
        args: [schema, dir, String(RUNS), String(TURNS)],
        onLine: (line) => {
          if (line.startsWith("READY ")) appName = line.slice("READY ".length);
          else if (line.startsWith("START ")) {
            run = Number(line.slice("START ".length));
            acks = 0;
            // One termination per run at a random commit; some runs get a second one, which may hit the recovery.
            const first = 1 + Math.floor(random() * COMMITS_PER_RUN);
            targets = random() < 0.3 ? [first, first + 1 + Math.floor(random() * COMMITS_PER_RUN)] : [first];
          } else if (line.startsWith("ACK ")) {
            acks += 1;
            if (targets.includes(acks)) {
              const target = run;
              const afterAck = acks;
              killing = killing.then(() => terminate(target, afterAck));
            }
          }
        },
      });
      await killing;
    } finally {
      await killer.end();
    }
    const detail = `${outcome.lines.filter((line) => !line.startsWith("ACK")).join("\n")}\n${outcome.stderr}`;
    // The process never died: it exited by itself, with every run done.
    expect(outcome.code, `the child process died or failed:\n${detail}`).toBe(0);
    expect(outcome.lines.at(-1)).toBe("DONE");
    const reports = outcome.lines
      .filter((line) => line.startsWith("RUN "))
      .map((line) => JSON.parse(line.slice("RUN ".length)) as RunReport);
    expect(reports.map((report) => report.index)).toEqual(Array.from({ length: RUNS }, (_, index) => index));

    const store = await PostgresStore.connect(DATABASE_URL, { schema });
    try {
      for (const report of reports) {
        const sessionId = `k${report.index}`;
        const log = await store.read(sessionId);
        expect(seqProblems(log), sessionId).toBeUndefined();
        const types = log.map((event) => event.type);
        expect(types.at(-1), sessionId).toBe("run_completed");
        expect(
          types.filter((type) => type === "run_started"),
          sessionId,
        ).toHaveLength(1);
        expect(types, sessionId).not.toContain("run_failed");
        const results = countByCall(log, "tool_result");
        for (const call of ALL_CALLS) expect(results.get(call.id), `${sessionId} results of ${call.id}`).toBe(1);
        expect(log.filter((event) => event.type === "tool_result" && callIdOf(event) === undefined)).toEqual([]);
        const effects = readEffects(join(dir, `${sessionId}.effects`));
        const charges = effects.filter((line) => line.tool === "charge").map((line) => line.toolCallId);
        expect(charges.sort(), `${sessionId} charges`).toEqual(
          ALL_CALLS.filter((call) => call.name === "charge").map((call) => call.id),
        );
        const keys = new Map<string, Set<string>>();
        for (const line of effects.filter((item) => item.tool === "reserve")) {
          keys.set(line.toolCallId, (keys.get(line.toolCallId) ?? new Set()).add(line.key));
        }
        for (const [id, set] of keys) expect(set.size, `${sessionId} reserve ${id} keys`).toBe(1);
        expect((projectDeps(log, {}) as { counter?: number }).counter, sessionId).toBe(TURNS);
      }
    } finally {
      await store.close();
    }

    const affected = reports.filter((report) => report.failures.length > 0);
    const failures = reports.flatMap((report) => report.failures);
    const backends = kills.flatMap((kill) => kill.backends);
    const summary = {
      runs: RUNS,
      terminations: kills.length,
      backendsTerminated: backends.length,
      backendsByState: tally(backends, (backend) => backend.state),
      activeQueries: tally(
        backends.filter((backend) => backend.state !== "idle"),
        (backend) => `${backend.state}: ${backend.query}`,
      ),
      affectedRuns: affected.length,
      storeErrors: failures.length,
      storeErrorsBy: tally(failures, (failure) => `${failure.during}/${failure.operation}: ${failure.cause}`),
      failedCommits: tally(
        failures.filter((failure) => failure.committing !== undefined),
        (failure) => `${failure.committing} ${failure.landed ? "landed (acknowledgement lost)" : "not landed"}`,
      ),
      recoveries: tally(
        affected.flatMap((report) => report.steps.slice(1)),
        (step) => step,
      ),
    };
    console.log(`pg termination: ${JSON.stringify(summary, null, 1)}`);
    // Not vacuous: terminations did interrupt runs, appends among them.
    expect(affected.length).toBeGreaterThanOrEqual(10);
    expect(failures.some((failure) => failure.operation === "append")).toBe(true);
  });
});
