/**
 * Child process of the durability tests. Usage:
 *   node --import tsx src/durability/crash-child.ts <mode> <backend> <location> <sessionId> <effectsFile> [turns] [policy]
 * mode: run | resume | auto (run if the session does not exist, else resume) | approval
 * backend: sqlite (location = file path) | pg (location = schema; URL from DATABASE_URL)
 * policy (resume): none (ToolInDoubtError surfaces) | reconcile (look at the side effects) | rerun
 * Env NOUS_PAUSE_AT=tool:window:nth pauses there (prints `AT <window>`); NOUS_WAIT_GO=1 makes a
 * resume wait for a `GO` line on stdin after reading the log (prints `READY`). NOUS_SCENARIO=extended
 * runs the extended scenario (a transfer needing approval each turn).
 * Prints `ACK <seq>` after every commit, `DECIDE <id> <type>` per in-doubt decision, and one of
 * `DONE <output>` (after `DEPS <json>`, the run's final deps), `PENDING <n>`, `INDOUBT <id>`, `CONFLICT`, `ERROR <name> <message>` at the end.
 */
import { writeSync } from "node:fs";
import { ApprovalPendingError, ToolInDoubtError } from "../errors/run-errors.js";
import { SessionConflictError } from "../errors/store-errors.js";
import type { InDoubtResolver } from "../runner/run-state.js";
import type { SessionStore } from "../store/session-store.js";
import { ackingStore, approvalAgent, type Deps, parsePause, reconcilePolicy, scenarioAgent } from "./scenario.js";

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
    const { PostgresStore } = await import("../store/postgres-store.js");
    return PostgresStore.connect(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", {
      schema: location,
    });
  }
  const { SqliteStore } = await import("../store/sqlite-store.js");
  return new SqliteStore({ path: location });
}

function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    let buffer = "";
    process.stdin.on("data", (chunk) => {
      buffer += chunk.toString();
      if (buffer.includes("GO")) resolve();
    });
  });
}

/** With NOUS_WAIT_GO, the first `read` (the resume's log load) waits for `GO` so two resumes overlap. */
function gatedStore(inner: SessionStore): SessionStore {
  if (!process.env.NOUS_WAIT_GO) return inner;
  let gated = false;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "read") {
        return async (...args: Parameters<SessionStore["read"]>) => {
          const events = await target.read(...args);
          if (!gated) {
            gated = true;
            say("READY");
            await waitForGo();
          }
          return events;
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
  try {
    if (mode === "approval") {
      const { agent } = approvalAgent(effectsFile);
      await agent.run("Pay people", { sessionId, store, deps: { counter: 0 } });
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
          : undefined;
    const resume = mode === "resume" || (mode === "auto" && (await raw.exists(sessionId)));
    const result = resume
      ? await agent.resume(sessionId, { store, deps: { counter: 0 }, resolveInDoubt })
      : await agent.run("Go", { sessionId, store, deps: { counter: 0 } });
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
    if (error instanceof SessionConflictError || (error as { cause?: unknown }).cause instanceof SessionConflictError) {
      say("CONFLICT");
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
