/**
 * Child process of the durability tests. Usage:
 *   node --import tsx src/durability/crash-child.ts <mode> <backend> <location> <sessionId> <effectsFile> [turns] [policy]
 * mode: run | resume | auto (run if the session does not exist, else resume) | approval
 * backend: sqlite (location = file path) | pg (location = schema; URL from DATABASE_URL)
 *   mode takeover: node … takeover <backend> <location> <sessionId> takes the session's lease as
 *   "intruder" once it is free (waiting for it to expire), prints `TOKEN <n>` and exits.
 * policy (resume): none (ToolInDoubtError surfaces) | reconcile (look at the side effects) | rerun |
 * result (always record a result, never re-run)
 * Env NOUS_PAUSE_AT=tool:window:nth pauses there (prints `AT <window>`; with NOUS_PAUSE_UNTIL_GO=1
 * it goes on after a `GO` line on stdin, else it waits to be killed); NOUS_WAIT_GO=1 makes a run wait
 * for a `GO` line on stdin just before it takes the session's lease (prints `READY`);
 * NOUS_SCENARIO=extended runs the extended scenario (a transfer needing approval every third turn);
 * NOUS_LEASE_TTL_MS sets the runs' lease ttl; NOUS_WAIT_LEASE=1 makes a run refused by a live lease
 * (a killed predecessor's) wait for it to expire and try again.
 * Prints `ACK <seq>` after every commit, `DECIDE <id> <type>` per in-doubt decision, and one of
 * `DONE <output>` (after `DEPS <json>`, the run's final deps), `PENDING <n>`, `INDOUBT <id>`, `CONFLICT <reason>`, `LOST`, `FINISHED`, `ERROR <name> <message>`
 * at the end.
 */
import { writeSync } from "node:fs";
import { LeaseLostError } from "../../src/errors/lease-errors.js";
import { ApprovalPendingError, SessionStateError, ToolInDoubtError } from "../../src/errors/run-errors.js";
import { SessionConflictError } from "../../src/errors/store-errors.js";
import type { InDoubtResolver } from "../../src/runner/run-state.js";
import type { SessionStore } from "../../src/store/session-store.js";
import {
  ackingStore,
  approvalAgent,
  type Deps,
  parsePause,
  reconcilePolicy,
  scenarioAgent,
  waitForGo,
  whenLeaseFree,
} from "./scenario.js";

const [
  mode = "auto",
  backend = "sqlite",
  location = "",
  sessionId = "s",
  effectsFile = "",
  turns = "12",
  policy = "none",
] = process.argv.slice(2);

const say = (line: string) => writeSync(1, `${line}\n`);

async function openStore(): Promise<SessionStore> {
  if (backend === "pg") {
    const { PostgresStore } = await import("../../src/store/postgres-store.js");
    return PostgresStore.connect(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", {
      schema: location,
    });
  }
  const { SqliteStore } = await import("../../src/store/sqlite-store.js");
  return new SqliteStore({ path: location });
}

/** With NOUS_WAIT_GO, the first `acquireLease` (a run's first step) waits for `GO`, so two runs race for it. */
function gatedStore(inner: SessionStore): SessionStore {
  if (!process.env.NOUS_WAIT_GO) return inner;
  let gated = false;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "acquireLease") {
        return async (...args: Parameters<SessionStore["acquireLease"]>) => {
          if (!gated) {
            gated = true;
            say("READY");
            await waitForGo();
          }
          return target.acquireLease(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function main(): Promise<number> {
  const raw = await openStore();
  const pause = parsePause(process.env.NOUS_PAUSE_AT);
  const store = gatedStore(ackingStore(raw, pause));
  const ttl = Number(process.env.NOUS_LEASE_TTL_MS ?? 0);
  const lease = ttl > 0 ? { ttlMs: ttl } : undefined;
  const patiently = <T>(attempt: () => Promise<T>) =>
    process.env.NOUS_WAIT_LEASE ? whenLeaseFree(attempt) : attempt();
  try {
    if (mode === "takeover") {
      const taken = await whenLeaseFree(() => raw.acquireLease(sessionId, { owner: "intruder", ttlMs: 60_000 }));
      say(`TOKEN ${taken.token}`);
      return 0;
    }
    if (mode === "approval") {
      const { agent } = approvalAgent(effectsFile);
      await patiently(() => agent.run("Pay people", { sessionId, store, deps: { counter: 0 }, lease }));
      say("DONE unexpected");
      return 1;
    }
    const extended = process.env.NOUS_SCENARIO === "extended";
    const agent = scenarioAgent({ effectsFile, turns: Number(turns), pause, extended });
    const resolveInDoubt: InDoubtResolver<Deps> | undefined =
      policy === "reconcile"
        ? reconcilePolicy(effectsFile, (id, decision) => say(`DECIDE ${id} ${decision.type}`))
        : policy === "rerun"
          ? (call) => {
              say(`DECIDE ${call.toolCallId} rerun`);
              return { type: "rerun" };
            }
          : policy === "result"
            ? (call) => {
                say(`DECIDE ${call.toolCallId} result`);
                return { type: "result", result: { settled: "without re-running" } };
              }
            : undefined;
    const result = await patiently(async () => {
      const resume = mode === "resume" || (mode === "auto" && (await raw.exists(sessionId)));
      return resume
        ? agent.resume(sessionId, { store, deps: { counter: 0 }, resolveInDoubt, lease })
        : agent.run("Go", { sessionId, store, deps: { counter: 0 }, lease });
    });
    say(`DEPS ${JSON.stringify(result.deps)}`);
    say(`DONE ${result.output}`);
    return 0;
  } catch (error) {
    if (error instanceof ApprovalPendingError) {
      say(`PENDING ${error.pending.length}`);
      return 0;
    }
    if (error instanceof ToolInDoubtError) {
      say(`INDOUBT ${error.call.toolCallId}`);
      return 2;
    }
    const conflict = error instanceof SessionConflictError ? error : (error as { cause?: unknown }).cause;
    if (conflict instanceof SessionConflictError) {
      say(`CONFLICT ${conflict.reason}`);
      return 3;
    }
    if (error instanceof LeaseLostError) {
      say("LOST");
      return 3;
    }
    // A resume that got the session only after another process finished its run.
    if (error instanceof SessionStateError && /no unfinished run/.test(error.message)) {
      say("FINISHED");
      return 3;
    }
    say(`ERROR ${(error as Error).name} ${(error as Error).message.replaceAll("\n", " ")}`);
    return 1;
  } finally {
    await raw.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    say(`ERROR fatal ${String(error)}`);
    process.exit(1);
  },
);
