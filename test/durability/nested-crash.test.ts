/**
 * kill -9 inside the nested calls of a code-mode program (a real child process on SQLite), then
 * resume in the test process with a fresh store connection: the nested call's intent is in the
 * log before its effect, the resume reports the nested call (not run_code) in doubt, re-runs an
 * idempotent one with the same key, never repeats a nested call whose result was recorded, and
 * ends with the deps of an uncrashed run, equal to the log's projection.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolInDoubtError } from "../../src/errors/run-errors.js";
import type { InDoubtResolver } from "../../src/runner/run-state.js";
import type { RunResult } from "../../src/runner/types.js";
import type { SessionEvent } from "../../src/session/events.js";
import { projectDeps, projectUsage } from "../../src/session/projections.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { countByCall, runChild, seqProblems, tempDir } from "./harness.js";
import { NESTED_CALLS, type NestedDeps, nestedAgent } from "./nested-scenario.js";
import { readEffects, whenLeaseFree } from "./scenario.js";

const script = join(dirname(fileURLToPath(import.meta.url)), "nested-child.ts");
const dir = tempDir("nested");
const store = new SqliteStore({ path: join(dir, "sessions.db") });
afterAll(() => store.close());

let uncrashed: NestedDeps;
beforeAll(async () => {
  const result = await nestedAgent({ effectsFile: join(dir, "baseline.effects") }).run("Pay", {
    sessionId: "baseline",
    store,
    deps: {},
  });
  uncrashed = result.deps;
  expect(uncrashed).toEqual({ looked: ["book"], held: ["book", "pen"] });
}, 60_000);

const effectsOf = (file: string, id: string) => readEffects(file).filter((line) => line.toolCallId === id);
const dataOf = (event: SessionEvent) =>
  event.data as { toolCallId?: string; parentToolCallId?: string; args?: unknown };

async function crashAt(sessionId: string, pause: string) {
  const effects = join(dir, `${sessionId}.effects`);
  const child = await runChild({
    script,
    args: [join(dir, "sessions.db"), sessionId, effects],
    env: { NOUS_PAUSE_AT: pause },
    kill: { atWindow: true },
  });
  expect(child.killed, child.lines.join(" | ")).toBe(true);
  const log = await store.read(sessionId);
  expect(seqProblems(log)).toBeUndefined();
  // Every acknowledged event survived the kill.
  for (const seq of child.acked) expect(log.some((event) => event.seq === seq)).toBe(true);
  return { effects, log };
}

/** No effect without a committed intent: each effect line of a call has a `tool_call` for it in the log. */
function checkIntents(log: readonly SessionEvent[], effects: string): void {
  const intents = countByCall(log, "tool_call");
  for (const line of readEffects(effects)) {
    expect(intents.get(line.toolCallId) ?? 0, `intent of ${line.toolCallId}`).toBeGreaterThanOrEqual(1);
  }
}

/**
 * The completed session: one result per nested call, deps = the log's projection = an uncrashed
 * run's, usage = the log's count (every intent, re-runs included).
 */
async function checkCompleted(sessionId: string, result: RunResult<string, NestedDeps>): Promise<SessionEvent[]> {
  const log = await store.read(sessionId);
  expect(seqProblems(log)).toBeUndefined();
  expect(log.at(-1)?.type).toBe("run_completed");
  const results = countByCall(log, "tool_call_result");
  for (const call of NESTED_CALLS) expect(results.get(call.id), call.id).toBe(1);
  expect(countByCall(log, "tool_result").get("prog")).toBe(1);
  expect(projectDeps(log, {})).toEqual(result.deps);
  expect(result.deps).toEqual(uncrashed);
  expect(projectUsage(log)).toEqual(result.usage);
  return log;
}

/** Settles an in-doubt call by looking at the side effects: done → a result, not done → run it. */
function reconcile(effects: string, decided: string[]): InDoubtResolver {
  return (call) => {
    decided.push(call.toolCallId);
    const done = effectsOf(effects, call.toolCallId).some((line) => line.kind === "EFFECT");
    return done ? { type: "result", result: { charged: 42, reconciled: true } } : { type: "rerun" };
  };
}

describe("kill -9 inside a code-mode program's nested calls (SQLite)", () => {
  it.each([
    "after-effect",
    "during",
  ] as const)("non-idempotent charge killed %s: its intent is committed, the resume names it in doubt and never charges twice", async (window) => {
    const sessionId = `charge-${window}`;
    const { effects, log } = await crashAt(sessionId, `prog.3:${window}`);
    const intent = log.find((event) => event.type === "tool_call" && dataOf(event).toolCallId === "prog.3");
    expect(intent?.data).toEqual({
      toolCallId: "prog.3",
      toolName: "charge",
      parentToolCallId: "prog",
      args: { amount: 42 },
    });
    expect(countByCall(log, "tool_call_result").get("prog.3")).toBeUndefined();
    // The calls before it were recorded with their results (committed with the next intent).
    expect(countByCall(log, "tool_call_result").get("prog.1")).toBe(1);
    expect(countByCall(log, "tool_call_result").get("prog.2")).toBe(1);
    const charged = window === "after-effect" ? 1 : 0;
    expect(effectsOf(effects, "prog.3")).toHaveLength(charged);
    checkIntents(log, effects);

    // Without a decision the resume stops at the nested call, by its own id, tool and arguments.
    const agent = nestedAgent({ effectsFile: effects });
    const error = await whenLeaseFree(() => agent.resume(sessionId, { store, deps: {} })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ToolInDoubtError);
    expect((error as ToolInDoubtError).call).toEqual({
      toolCallId: "prog.3",
      toolName: "charge",
      args: { amount: 42 },
    });
    // The replay up to it ran nothing again.
    expect(effectsOf(effects, "prog.1")).toHaveLength(1);
    expect(effectsOf(effects, "prog.2")).toHaveLength(1);
    expect(effectsOf(effects, "prog.3")).toHaveLength(charged);

    const decided: string[] = [];
    const result = await whenLeaseFree(() =>
      agent.resume(sessionId, { store, deps: {}, resolveInDoubt: reconcile(effects, decided) }),
    );
    expect(result.output).toBe("paid");
    expect(decided).toEqual(["prog.3"]);
    const after = await checkCompleted(sessionId, result);
    checkIntents(after, effects);
    expect(effectsOf(effects, "prog.1")).toHaveLength(1);
    expect(effectsOf(effects, "prog.2")).toHaveLength(1);
    expect(effectsOf(effects, "prog.3")).toHaveLength(1); // charged exactly once
    expect(effectsOf(effects, "prog.4")).toHaveLength(1);
    const settled = after.find((event) => event.type === "tool_call_result" && dataOf(event).toolCallId === "prog.3");
    expect((settled?.data as { result: unknown }).result).toEqual(
      window === "after-effect" ? { charged: 42, reconciled: true } : { charged: 42 },
    );
  }, 60_000);

  it("idempotent reserve killed after its effect: re-run with the same idempotency key, nothing before it again", async () => {
    const sessionId = "reserve-after-effect";
    const { effects, log } = await crashAt(sessionId, "prog.2:after-effect");
    expect(countByCall(log, "tool_call").get("prog.2")).toBe(1);
    expect(countByCall(log, "tool_call_result").get("prog.2")).toBeUndefined();
    checkIntents(log, effects);

    const decided: string[] = [];
    const result = await whenLeaseFree(() =>
      nestedAgent({ effectsFile: effects }).resume(sessionId, {
        store,
        deps: {},
        resolveInDoubt: reconcile(effects, decided),
      }),
    );
    expect(decided).toEqual([]); // idempotent: no one is asked
    const after = await checkCompleted(sessionId, result);
    checkIntents(after, effects);
    const reserved = effectsOf(effects, "prog.2");
    expect(reserved).toHaveLength(2);
    expect(new Set(reserved.map((line) => line.key)).size).toBe(1);
    expect(effectsOf(effects, "prog.1")).toHaveLength(1);
    expect(effectsOf(effects, "prog.3")).toHaveLength(1);
    // The re-run is a second intent of the same call, marked as such.
    const intents = after.filter((event) => event.type === "tool_call" && dataOf(event).toolCallId === "prog.2");
    expect(intents.map((event) => (event.data as { rerun?: boolean }).rerun)).toEqual([undefined, true]);
  }, 60_000);

  it.each([
    "during",
    "after-intent",
  ] as const)("killed in the last call (%s): no nested call with a recorded result runs again", async (window) => {
    const sessionId = `last-${window}`;
    const { effects, log } = await crashAt(sessionId, `prog.4:${window}`);
    for (const id of ["prog.1", "prog.2", "prog.3"]) expect(countByCall(log, "tool_call_result").get(id), id).toBe(1);
    const before = new Map<string, number>(NESTED_CALLS.map((call) => [call.id, effectsOf(effects, call.id).length]));
    const decided: string[] = [];
    const result = await whenLeaseFree(() =>
      nestedAgent({ effectsFile: effects }).resume(sessionId, {
        store,
        deps: {},
        resolveInDoubt: reconcile(effects, decided),
      }),
    );
    expect(decided).toEqual([]);
    const after = await checkCompleted(sessionId, result);
    checkIntents(after, effects);
    for (const id of ["prog.1", "prog.2", "prog.3"]) expect(effectsOf(effects, id).length, id).toBe(before.get(id));
    expect(effectsOf(effects, "prog.4")).toHaveLength(1);
    // The program saw the recorded results again and returned what an uncrashed run returns.
    const programResult = after.find((event) => event.type === "tool_result" && dataOf(event).toolCallId === "prog");
    expect((programResult?.data as { result: unknown }).result).toEqual({
      result: {
        found: { item: "book", price: 7 },
        held: { reserved: "book" },
        paid: { charged: 42 },
        more: { reserved: "pen" },
      },
    });
  }, 60_000);
});
