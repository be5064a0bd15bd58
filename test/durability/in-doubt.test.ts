/**
 * Kills inside each window of one tool call (the calls of turn 2) for the read-only, the idempotent
 * and the non-idempotent tool, then resumes in the test process with a fresh store connection.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ToolInDoubtError } from "../../src/errors/run-errors.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { countByCall, runChild, seqProblems, tempDir } from "./harness.js";
import { readEffects, scenarioAgent, WINDOWS, type Window, whenLeaseFree } from "./scenario.js";

const TURNS = 4;
const dir = tempDir("in-doubt");
const path = join(dir, "sessions.db");
const store = new SqliteStore({ path });
afterAll(() => store.close());

const effectsOf = (file: string, id: string) => readEffects(file).filter((line) => line.toolCallId === id);
/** Windows where the intent is committed and the result is not: the call is in doubt. */
const IN_DOUBT: readonly Window[] = ["after-intent", "during", "after-effect"];

describe.each(["lookup", "reserve", "charge"] as const)("killed inside a %s call", (toolName) => {
  it.each(WINDOWS)("in window %s", async (window) => {
    const sessionId = `${toolName}-${window}`;
    const effects = join(dir, `${sessionId}.effects`);
    const id = `t2_${toolName}`;
    const killed = await runChild({
      args: ["run", "sqlite", path, sessionId, effects, String(TURNS)],
      // A short lease, so the resume below waits little for the killed process's lease to expire.
      env: { NOUS_PAUSE_AT: `${toolName}:${window}:2`, NOUS_LEASE_TTL_MS: "300" },
      kill: { atWindow: true },
    });
    expect(killed.killed).toBe(true);
    expect(killed.last).toBe(`AT ${window}`);
    expect(store.integrityCheck().ok).toBe(true);
    const before = await store.read(sessionId);
    expect(seqProblems(before)).toBeUndefined();
    const intent = countByCall(before, "tool_call").get(id) ?? 0;
    const logged = countByCall(before, "tool_result").get(id) ?? 0;
    expect(intent).toBe(window === "before-intent" ? 0 : 1);
    expect(logged).toBe(window === "after-result" ? 1 : 0);
    const ranBefore = effectsOf(effects, id).length;
    expect(ranBefore).toBe(window === "after-effect" || window === "after-result" ? 1 : 0);
    const effectsBefore = new Map(
      [...countByCall(before, "tool_result").keys()].map((key) => [key, effectsOf(effects, key).length]),
    );

    const agent = scenarioAgent({ effectsFile: effects, turns: TURNS });
    const decisions: string[] = [];
    if (toolName === "charge" && IN_DOUBT.includes(window)) {
      // Never re-run automatically: without a decision the resume stops and runs nothing.
      const error = await whenLeaseFree(() => agent.resume(sessionId, { store, deps: { counter: 0 } })).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ToolInDoubtError);
      expect((error as ToolInDoubtError).call.toolCallId).toBe(id);
      expect(effectsOf(effects, id).length).toBe(ranBefore);
    }
    const result = await whenLeaseFree(() =>
      agent.resume(sessionId, {
        store,
        deps: { counter: 0 },
        resolveInDoubt: (call) => {
          decisions.push(call.toolCallId);
          // Settle as decided: a charge that happened gets a recorded result, one that did not runs.
          return ranBefore > 0 ? { type: "result", result: { settled: "by operator" } } : { type: "rerun" };
        },
      }),
    );
    expect(result.output).toBe(`done after ${TURNS} turns`);
    const after = await store.read(sessionId);
    expect(seqProblems(after)).toBeUndefined();
    expect(after.at(-1)?.type).toBe("run_completed");
    for (const [key, count] of countByCall(after, "tool_result")) expect(count, key).toBe(1);
    // No call with a logged result ever runs again.
    for (const [key, count] of effectsBefore) expect(effectsOf(effects, key).length, key).toBe(count);
    // Idempotent tools are re-run on their own, with the same idempotency key; the charge only as decided.
    // A result is committed together with the next call's intent (one fsync): killed right after
    // reserve's result, the charge that follows it in the turn is in doubt too, though it never ran.
    const expectedDecisions =
      toolName === "charge" && IN_DOUBT.includes(window)
        ? [id]
        : toolName === "reserve" && window === "after-result"
          ? ["t2_charge"]
          : [];
    expect(decisions).toEqual(expectedDecisions);
    const ran = effectsOf(effects, id);
    if (toolName === "charge") {
      expect(ran.length).toBe(1);
      if (window === "after-effect") {
        const settled = after.find(
          (event) => event.type === "tool_result" && (event.data as { toolCallId: string }).toolCallId === id,
        );
        expect(JSON.stringify(settled?.data)).toContain("by operator");
      }
    } else {
      expect(ran.length).toBe(window === "after-effect" ? 2 : 1);
      expect(new Set(ran.map((line) => line.key)).size).toBe(1);
    }
  });
});
