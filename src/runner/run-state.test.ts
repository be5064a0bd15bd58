import { describe, expect, it } from "vitest";
import { AgentContext } from "../session/agent-context.js";
import type { SessionEvent } from "../session/events.js";
import { type RunConfig, type RunPersistence, RunState } from "./run-state.js";

/** A persistence whose commits finish only when the test lets them (one at a time, in the order made). */
function gatedPersistence() {
  const batches: SessionEvent[][] = [];
  const waiting: (() => void)[] = [];
  const persistence: RunPersistence = {
    commit(events) {
      batches.push([...events]);
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
  return {
    persistence,
    batches,
    /** Lets the oldest commit in flight finish. */
    release: () => waiting.shift()?.(),
    inFlight: () => waiting.length,
  };
}

function stateWith(persistence: RunPersistence): RunState<object, string> {
  const config = { persistence, runId: "r", depth: 0, tools: new Map() } as unknown as RunConfig<object, string>;
  return new RunState<object, string>(config, AgentContext.create({ deps: {} }));
}

const settledFlag = (promise: Promise<void> | undefined) => {
  const flag = { done: false };
  promise?.then(() => {
    flag.done = true;
  });
  return flag;
};
const ticks = async () => {
  for (let index = 0; index < 5; index++) await Promise.resolve();
};

describe("RunState.commit", () => {
  it("serializes commits made while another is in flight: each event once, in order", async () => {
    const gate = gatedPersistence();
    const state = stateWith(gate.persistence);
    state.record("a", {});
    const first = state.commit();
    // A nested call records and commits while the first commit has not finished.
    state.record("b", {});
    state.record("c", {});
    const second = state.commit();
    // Nothing new since the second: this one still waits for the events already recorded.
    const third = state.commit();
    expect(third).toBeDefined();
    await ticks();
    // The second batch is not sent before the first is committed (the store checks the last seq).
    expect(gate.inFlight()).toBe(1);
    const firstDone = settledFlag(first);
    const secondDone = settledFlag(second);
    const thirdDone = settledFlag(third);
    gate.release();
    await ticks();
    expect(firstDone.done).toBe(true);
    expect(secondDone.done).toBe(false);
    expect(thirdDone.done).toBe(false);
    gate.release();
    await Promise.all([first, second, third]);
    expect(gate.batches.map((batch) => batch.map((event) => event.type))).toEqual([["a"], ["b", "c"]]);
    expect(gate.batches.flat().map((event) => event.seq)).toEqual([1, 2, 3]);
    // All committed: nothing to wait for.
    expect(state.commit()).toBeUndefined();
  });

  it("commits from interleaved callers (Promise.all) never overlap or repeat an event", async () => {
    const committed: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const persistence: RunPersistence = {
      async commit(events) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        committed.push(...events.map((event) => event.seq));
        inFlight -= 1;
      },
    };
    const state = stateWith(persistence);
    await Promise.all(
      Array.from({ length: 20 }, async (_, worker) => {
        for (let step = 0; step < 5; step++) {
          state.record("step", { worker, step });
          const recorded = state.context.log.length;
          await state.commit();
          // Resolved means the store has every event recorded before the call.
          expect(committed.length).toBeGreaterThanOrEqual(recorded);
          await Promise.resolve();
        }
      }),
    );
    expect(maxInFlight).toBe(1);
    expect(committed).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
  });

  it("a failed commit fails the commits queued behind it (no event stored past a gap); the next one retries", async () => {
    const stored: number[] = [];
    let calls = 0;
    const persistence: RunPersistence = {
      async commit(events) {
        calls += 1;
        await Promise.resolve();
        if (calls === 1) throw new Error("disk full");
        stored.push(...events.map((event) => event.seq));
      },
    };
    const state = stateWith(persistence);
    state.record("a", {});
    const first = state.commit();
    state.record("b", {});
    const second = state.commit();
    await expect(first).rejects.toThrow("disk full");
    await expect(second).rejects.toThrow("disk full");
    expect(stored).toEqual([]);
    // Once the failure is known, the next commit sends again everything the store does not have.
    state.record("c", {});
    await state.commit();
    expect(stored).toEqual([1, 2, 3]);
  });
});
