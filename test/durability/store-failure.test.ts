/**
 * A run whose store fails (a StoreError from a commit: a lost connection, a full disk) stops as a
 * crash would: nothing more is written, the session stays unfinished, a new run is refused until it
 * is resumed, and `agent.resume` (which re-reads the log) finishes it, whether the failed commit
 * landed or not. Checked at every commit of the scenario run, both ways (in memory), and on
 * PostgreSQL with a COMMIT whose acknowledgement is really lost.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NousError } from "../../src/errors/nous-error.js";
import { SessionStateError, ToolInDoubtError } from "../../src/errors/run-errors.js";
import { StoreError } from "../../src/errors/store-errors.js";
import type { SessionEvent } from "../../src/session/events.js";
import { projectDeps } from "../../src/session/projections.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { commitAckProxy } from "../../src/test-support/commit-ack-proxy.js";
import { callIdOf, countByCall, DATABASE_URL, dropSchema, postgresReachable, seqProblems, tempDir } from "./harness.js";
import { callsOfTurn, readEffects, reconcilePolicy, scenarioAgent } from "./scenario.js";

const TURNS = 3;
const ALL_CALLS = Array.from({ length: TURNS }, (_, turn) => callsOfTurn(turn)).flat();

/** A store whose `at`-th append fails with StoreError once: after committing (`landed`, a lost acknowledgement) or before. */
function failingOnce(inner: SessionStore, at: number, landed: boolean): SessionStore {
  let appends = 0;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return async (...args: Parameters<SessionStore["append"]>) => {
          appends += 1;
          if (appends !== at) return target.append(...args);
          if (landed) await target.append(...args);
          throw new StoreError({ backend: "memory", operation: "append", cause: new Error("connection lost") });
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** How many appends a run of the scenario makes. */
async function countCommits(dir: string): Promise<number> {
  const store = new MemoryStore();
  let appends = 0;
  const counting = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "append") {
        return (...args: Parameters<SessionStore["append"]>) => {
          appends += 1;
          return target.append(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const agent = scenarioAgent({ effectsFile: join(dir, "count.effects"), turns: TURNS });
  await agent.run("Go", { sessionId: "s", store: counting, deps: { counter: 0 } });
  return appends;
}

function checkFinished(events: readonly SessionEvent[], effectsFile: string): void {
  expect(seqProblems(events)).toBeUndefined();
  expect(events.at(-1)?.type).toBe("run_completed");
  // A store failure records nothing (a ToolInDoubtError on the way does record its run_failed).
  const failed = events.filter((event) => event.type === "run_failed");
  expect(failed.map((event) => (event.data as { error: { code: string } }).error.code)).not.toContain("store_failure");
  const results = countByCall(events, "tool_result");
  for (const call of ALL_CALLS) expect(results.get(call.id), `results of ${call.id}`).toBe(1);
  const effects = readEffects(effectsFile);
  const charges = effects.filter((line) => line.tool === "charge").map((line) => line.toolCallId);
  // The non-idempotent tool ran exactly once per call: never repeated, never lost.
  expect(charges.sort()).toEqual(ALL_CALLS.filter((call) => call.name === "charge").map((call) => call.id));
  expect((projectDeps(events, {}) as { counter?: number }).counter).toBe(TURNS);
}

describe("a run whose store fails stops as a crash would and resumes to completion", async () => {
  const dir = tempDir("store-failure");
  const commits = await countCommits(dir);

  it("the scenario run commits often enough to be interesting", () => {
    expect(commits).toBeGreaterThan(3 * TURNS);
  });

  for (const landed of [false, true]) {
    it(`at each of the run's commits, the failed commit ${landed ? "landed (acknowledgement lost)" : "not landed"}`, async () => {
      const outcomes = { resumed: 0, completedInLog: 0, nothingRecorded: 0 };
      for (let at = 1; at <= commits; at++) {
        const tag = `${landed ? "landed" : "lost"}-${at}`;
        const effectsFile = join(dir, `${tag}.effects`);
        const store = new MemoryStore();
        const agent = scenarioAgent({ effectsFile, turns: TURNS });
        const runId = `run-${tag}`;
        const failure = await agent
          .run("Go", { sessionId: "s", runId, store: failingOnce(store, at, landed), deps: { counter: 0 } })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failure, tag).toBeInstanceOf(StoreError);
        expect(NousError.isInstance(failure) && failure.fault).toBe("store");
        const log = await store.read("s");
        expect(seqProblems(log), tag).toBeUndefined();
        // Nothing is written after the failure: no run_failed, whatever the failed commit did.
        expect(
          log.map((event) => event.type),
          tag,
        ).not.toContain("run_failed");
        const started = log.some((event) => event.type === "run_started");
        const completed = log.at(-1)?.type === "run_completed";
        if (started && !completed) {
          // Unfinished, and its lease released: resumable at once.
          expect((await store.get("s"))?.status, tag).toBe("interrupted");
          // The unfinished run must be resumed; a new run is refused.
          await expect(agent.run("Again", { sessionId: "s", store, deps: { counter: 0 } }), tag).rejects.toThrow(
            SessionStateError,
          );
          const result = await agent.resume("s", {
            store,
            deps: { counter: 0 },
            resolveInDoubt: reconcilePolicy(effectsFile),
          });
          expect(result.output, tag).toBe(`done after ${TURNS} turns`);
          expect(result.runId).toBe(runId);
          expect(result.deps).toEqual(projectDeps(result.log, {}));
          outcomes.resumed += 1;
        } else if (completed) {
          // The last commit landed: the run is complete in the log; there is nothing to resume.
          await expect(agent.resume("s", { store, deps: { counter: 0 } })).rejects.toThrow(SessionStateError);
          outcomes.completedInLog += 1;
        } else {
          // The first commit did not land: nothing of the run exists, so it is simply run again.
          expect(log).toEqual([]);
          await agent.run("Go", { sessionId: "s", runId, store, deps: { counter: 0 } });
          outcomes.nothingRecorded += 1;
        }
        checkFinished(await store.read("s"), effectsFile);
      }
      if (landed) expect(outcomes).toEqual({ resumed: commits - 1, completedInLog: 1, nothingRecorded: 0 });
      else expect(outcomes).toEqual({ resumed: commits - 1, completedInLog: 0, nothingRecorded: 1 });
    });
  }
});

const reachable = await postgresReachable();
const schema = `nous_ackloss_${process.pid}`;

afterAll(async () => {
  if (reachable) await dropSchema(schema);
});

/** Arms the proxy before the append that holds an event matching `when`: that commit lands, its acknowledgement is lost. */
function losingAckOf(inner: SessionStore, arm: () => void, when: (event: SessionEvent) => boolean): SessionStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return (...args: Parameters<SessionStore["append"]>) => {
          if (args[1].some(when)) arm();
          return target.append(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe.runIf(reachable)("PostgreSQL: a run whose COMMIT acknowledgement is lost", () => {
  it("at a charge's intent: the intent landed, the charge never ran; resume treats it as in doubt and runs it once", async () => {
    const dir = tempDir("ack-lost");
    const effectsFile = join(dir, "intent.effects");
    const proxy = await commitAckProxy(DATABASE_URL);
    const store = await PostgresStore.connect(proxy.url, { schema });
    try {
      const isIntent = (event: SessionEvent) => event.type === "tool_call" && callIdOf(event) === "t1_charge";
      const failing = losingAckOf(store, proxy.arm, isIntent);
      const agent = () => scenarioAgent({ effectsFile, turns: TURNS });
      const failure = await agent()
        .run("Go", { sessionId: "intent", store: failing, deps: { counter: 0 } })
        .catch((error: unknown) => error);
      expect(proxy.lost).toBe(1);
      expect(failure).toBeInstanceOf(StoreError);
      const log = await store.read("intent");
      expect(log.at(-1)).toSatisfy(isIntent); // it landed, though the run was told it failed
      expect(readEffects(effectsFile).filter((line) => line.toolCallId === "t1_charge")).toEqual([]);
      await expect(agent().run("Again", { sessionId: "intent", store, deps: { counter: 0 } })).rejects.toThrow(
        SessionStateError,
      );
      // A non-idempotent call with an intent and no result: never silently repeated …
      await expect(agent().resume("intent", { store, deps: { counter: 0 } })).rejects.toThrow(ToolInDoubtError);
      // … settled by looking at the effects: none, so it runs (once).
      const result = await agent().resume("intent", {
        store,
        deps: { counter: 0 },
        resolveInDoubt: reconcilePolicy(effectsFile),
      });
      expect(result.output).toBe(`done after ${TURNS} turns`);
      checkFinished(await store.read("intent"), effectsFile);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("at the final commit: the run is complete in the log, nothing to resume", async () => {
    const dir = tempDir("ack-lost");
    const effectsFile = join(dir, "final.effects");
    const proxy = await commitAckProxy(DATABASE_URL);
    const store = await PostgresStore.connect(proxy.url, { schema });
    try {
      const failing = losingAckOf(store, proxy.arm, (event) => event.type === "run_completed");
      const agent = () => scenarioAgent({ effectsFile, turns: TURNS });
      const failure = await agent()
        .run("Go", { sessionId: "final", store: failing, deps: { counter: 0 } })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreError);
      expect((await store.get("final"))?.status).toBe("completed");
      await expect(agent().resume("final", { store, deps: { counter: 0 } })).rejects.toThrow(SessionStateError);
      checkFinished(await store.read("final"), effectsFile);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
