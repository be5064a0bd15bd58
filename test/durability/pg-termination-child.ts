/**
 * Child process of pg-termination.test.ts: runs the durability scenario `runs` times on PostgresStore
 * (even runs plain, odd runs with group commit) while the parent terminates this process's
 * PostgreSQL backends (`pg_terminate_backend`, matched by application name) at random moments.
 * Usage: `pg-termination-child.ts <schema> <effectsDir> <runs> <turns>`.
 *
 * A run that fails with StoreError is recovered, as an application would: re-read the log; if the
 * run is unfinished, `agent.resume` it; if its last commit had landed, it is complete; if nothing of
 * it was recorded, run it again. Prints `READY <application name>`, `START <i>` before each run, `ACK <seq>` after each commit,
 * `RUN <json>` after each run, `DONE` at the end. Any other error exits 1; an uncaught one (a pg
 * `'error'` event nobody listens to) kills the process, which the parent sees as its exit code.
 */
import { writeSync } from "node:fs";
import { join } from "node:path";
import { NousError } from "../../src/errors/nous-error.js";
import type { SessionEvent } from "../../src/session/events.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { reconcilePolicy, scenarioAgent } from "./scenario.js";

const [schema = "", effectsDir = "", runs = "50", turns = "6"] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);

/** Prints `ACK <seq>` once each append is committed. */
function acking(inner: SessionStore): SessionStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return async (...args: Parameters<SessionStore["append"]>) => {
          await target.append(...args);
          say(`ACK ${args[1].at(-1)?.seq ?? args[2].expectedLastSeq}`);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function isStoreFailure(error: unknown): error is NousError {
  return NousError.isInstance(error) && error.fault === "store";
}

interface Failure {
  /** What the application was doing: the first run, a resume, a re-run, or re-reading the log. */
  readonly during: "run" | "resume" | "rerun" | "read";
  /** The store operation that failed, and the driver's message. */
  readonly operation: string;
  readonly cause: string;
  /** For a run that failed committing: the type of the last event it meant to commit. */
  readonly committing?: string;
  /** Whether that commit landed after all (its acknowledgement was lost), as the re-read log shows. */
  landed?: boolean;
}

type Step = "run" | "resume" | "rerun" | "complete";

/** What the log says to do next with run `runId`. */
function nextStep(log: readonly SessionEvent[], runId: string): Step {
  const started = log.some(
    (event) => event.type === "run_started" && (event.data as { runId?: string }).runId === runId,
  );
  if (!started) return "rerun";
  const last = log.at(-1);
  if (last?.type === "run_completed" && (last.data as { runId?: string }).runId === runId) return "complete";
  return "resume";
}

async function runOne(store: SessionStore, index: number): Promise<Record<string, unknown>> {
  const sessionId = `k${index}`;
  const runId = `k${index}-run`;
  const effectsFile = join(effectsDir, `${sessionId}.effects`);
  const deps = { counter: 0 };
  const failures: Failure[] = [];
  const steps: Step[] = [];
  let step: Step = "run";
  let failed: { failure: Failure; lastSeq: number | undefined } | undefined;
  for (let attempt = 0; attempt < 40; attempt++) {
    steps.push(step);
    // A fresh agent per attempt, as a new process would have (the scripted model counts its requests).
    const agent = scenarioAgent({ effectsFile, turns: Number(turns) });
    try {
      switch (step) {
        case "run":
        case "rerun":
          await agent.run("Go", { sessionId, runId, store, deps });
          return { index, steps, failures };
        case "resume":
          await agent.resume(sessionId, { store, deps, resolveInDoubt: reconcilePolicy(effectsFile) });
          return { index, steps, failures };
        case "complete":
          return { index, steps, failures };
        default: {
          const unknown: never = step;
          throw new Error(`unknown step ${String(unknown)}`);
        }
      }
    } catch (error) {
      if (!isStoreFailure(error) || step === "complete") throw error;
      failures.push({
        during: step,
        operation: (error as { operation?: string }).operation ?? "?",
        cause: causeOf(error),
        committing: error.log?.at(-1)?.type,
      });
      failed = { failure: failures.at(-1) as Failure, lastSeq: error.log?.at(-1)?.seq };
    }
    // The log is the truth: re-read it (the connection may be terminated here too) and decide again.
    for (;;) {
      try {
        const log = await store.read(sessionId);
        if (failed?.lastSeq !== undefined) failed.failure.landed = (log.at(-1)?.seq ?? 0) >= failed.lastSeq;
        failed = undefined;
        step = nextStep(log, runId);
        break;
      } catch (error) {
        if (!isStoreFailure(error)) throw error;
        failures.push({ during: "read", operation: "read", cause: causeOf(error) });
      }
    }
  }
  throw new Error(`run ${index} did not complete in 40 attempts`);
}

function causeOf(error: Error): string {
  return error.cause instanceof Error ? error.cause.message : String(error.cause);
}

async function main(): Promise<void> {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test");
  const appName = `nous-kill-${process.pid}`;
  url.searchParams.set("application_name", appName);
  const plain = await PostgresStore.connect(url.toString(), { schema, poolSize: 4 });
  const grouped = await PostgresStore.connect(url.toString(), { schema, poolSize: 4, groupCommit: true });
  say(`READY ${appName}`);
  for (let index = 0; index < Number(runs); index++) {
    say(`START ${index}`);
    const report = await runOne(acking(index % 2 === 0 ? plain : grouped), index);
    say(`RUN ${JSON.stringify(report)}`);
  }
  // A termination sent during the last run may still arrive while the pools end.
  for (const store of [plain, grouped]) await store.close().catch((error) => say(`CLOSE ${String(error)}`));
  say("DONE");
}

main().then(
  () => process.exit(0),
  (error) => {
    say(`ERROR ${String(error)}`);
    process.exit(1);
  },
);
