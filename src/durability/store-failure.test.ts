/**
 * A run whose store fails (a StoreError from a commit: a lost connection, a full disk) stops as a
 * crash would: nothing more is written, the session stays unfinished, a new run is refused until it
 * is resumed, and `agent.resume` (which re-reads the log) finishes it, whether the failed commit
 * landed or not. Checked at every commit of the scenario run, both ways.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NousError } from "../errors/nous-error.js";
import { SessionStateError } from "../errors/run-errors.js";
import { StoreError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps } from "../session/projections.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { countByCall, seqProblems, tempDir } from "./harness.js";
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
  expect(events.some((event) => event.type === "run_failed")).toBe(false);
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
          expect((await store.get("s"))?.status, tag).toBe("running");
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
