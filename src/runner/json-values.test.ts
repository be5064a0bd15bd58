/**
 * Issue 14, §1: "Every value is JSON-normalized before it is recorded, or refused with a typed error
 * that names the path of the offending value — the same for top-level tools." Tool results, update
 * values and log-event data; top-level and nested in code mode; on a memory and a SQLite store.
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps } from "../session/projections.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

const cycle: Record<string, unknown> = { name: "loop" };
cycle.self = cycle;

/** Values JSON converts: recorded (and folded, and shown) as JSON.parse(JSON.stringify(value)) gives them. */
const normalized: [string, unknown, unknown][] = [
  ["a Date", { when: new Date(0) }, { when: "1970-01-01T00:00:00.000Z" }],
  ["a function", { callback: () => 1, list: [() => 1], keep: 1 }, { list: [null], keep: 1 }],
  ["undefined", { gone: undefined, list: [undefined, 2] }, { list: [null, 2] }],
  ["NaN", { ratio: Number.NaN, far: Number.POSITIVE_INFINITY }, { ratio: null, far: null }],
];
/** Values JSON cannot represent faithfully: the call fails naming the path. */
const refused: [string, unknown, string, RegExp][] = [
  ["a BigInt", { items: [1, { count: 10n }] }, "$.value.items[1].count", /a bigint/],
  ["a cycle", { wrapper: cycle }, "$.value.wrapper.self", /a cycle/],
  ["a Map", { index: new Map([["a", 1]]) }, "$.value.index", /a Map \(JSON would make it \{\}\)/],
];

/** `probe` returns `value` as its result, and sets it into deps and an audit event. */
function probeTool(value: unknown, update: "same" | "json" = "same") {
  return tool({
    name: "probe",
    description: "x",
    input: z.object({}),
    execute: () => ({
      result: { value },
      update:
        update === "same"
          ? ContextUpdate.new().set("seen", { value }).logEvent("probe_audit", { value })
          : ContextUpdate.new().append("ran", 1),
    }),
  });
}

type ToolMessage = { role: "tool"; toolCallId: string; result: unknown; isError: boolean };

async function runProbe(store: SessionStore, sessionId: string, probe: ReturnType<typeof probeTool>, nested: boolean) {
  const call = nested
    ? {
        id: "p",
        name: "run_code",
        args: { code: "try { return await tools.probe({}) } catch (error) { return { failed: error.message } }" },
      }
    : { id: "p", name: "probe", args: {} };
  const model = new ScriptedModel([{ toolCalls: [call] }, { text: "done" }]);
  const agent = new Agent({ model, tools: [probe, codeMode({ tools: [probe] })] });
  const result = await agent.run("go", { sessionId, store, deps: {} });
  checkProjections(result, {});
  // What the store holds is what the run holds, event for event.
  const stored = await store.read(sessionId);
  expect(stored.map((event) => [event.type, event.data])).toEqual(result.log.map((event) => [event.type, event.data]));
  expect(projectDeps(stored, {})).toEqual(result.deps);
  const toolMessage = result.messages.find((message) => message.role === "tool") as ToolMessage;
  const nestedResult = result.log.find((event) => event.type === "tool_call_result")?.data as
    | { result: unknown; isError: boolean }
    | undefined;
  return { result, toolMessage, nestedResult };
}

const dataOf = (log: readonly SessionEvent[], type: string) => log.find((event) => event.type === type)?.data;

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());
let sessions = 0;

describe.each<[string, () => SessionStore]>([
  ["memory", () => new MemoryStore()],
  ["SQLite", () => sqlite],
])("every value is JSON-normalized before it is recorded (%s store)", (_storeName, makeStore) => {
  for (const nested of [false, true]) {
    const where = nested ? "nested in code mode" : "top-level";
    for (const [name, value, expected] of normalized) {
      it(`${name} returned by a ${where} tool is recorded, folded and seen as JSON gives it`, async () => {
        const { result, toolMessage, nestedResult } = await runProbe(
          makeStore(),
          `n${++sessions}`,
          probeTool(value),
          nested,
        );
        expect(result.output).toBe("done");
        expect(toolMessage.isError).toBe(false);
        if (nested) {
          expect(nestedResult).toMatchObject({ isError: false });
          expect(JSON.stringify(nestedResult?.result)).toBe(JSON.stringify({ value: expected }));
          // the program got the recorded value
          expect(toolMessage.result).toEqual({ result: { value: expected } });
        } else {
          expect(JSON.stringify(toolMessage.result)).toBe(JSON.stringify({ value: expected }));
        }
        expect(JSON.stringify(result.deps)).toBe(JSON.stringify({ seen: { value: expected } }));
        expect(JSON.stringify(dataOf(result.log, "probe_audit"))).toBe(JSON.stringify({ value: expected }));
      });
    }

    for (const [name, value, path, reason] of refused) {
      it(`${name} returned by a ${where} tool is refused with a typed error naming ${path}; the run goes on`, async () => {
        const { result, toolMessage, nestedResult } = await runProbe(
          makeStore(),
          `r${++sessions}`,
          probeTool(value),
          nested,
        );
        expect(result.output).toBe("done");
        const failure = nested ? nestedResult : toolMessage;
        expect(failure?.isError).toBe(true);
        const message = String(failure?.result);
        expect(message).toContain(`Tool "probe" failed: its result is not JSON data at ${path}:`);
        expect(message).toMatch(reason);
        // The update held the same value: refused whole, nothing of it applied.
        expect(message).toMatch(/its context update's operation 0 \(set "seen"\) is not JSON data at \$\.value/);
        expect(message).toMatch(/nothing of the update was applied/);
        expect(result.deps).toEqual({});
        expect(dataOf(result.log, "probe_audit")).toBeUndefined();
        if (nested) expect(toolMessage.result).toEqual({ result: { failed: message } });
      });
    }

    it(`a ${where} result that is refused still records the call's update (what the tool did)`, async () => {
      const { result, toolMessage, nestedResult } = await runProbe(
        makeStore(),
        `u${++sessions}`,
        probeTool({ count: 1n }, "json"),
        nested,
      );
      const failure = nested ? nestedResult : toolMessage;
      expect(failure).toMatchObject({ isError: true, result: expect.stringMatching(/\$\.value\.count: a bigint/) });
      expect(result.deps).toEqual({ ran: [1] });
    });
  }
});

describe("values that do not come from the tool itself", () => {
  it("a result put in place by postToolUse is normalized like the tool's own", async () => {
    const echo = tool({ name: "echo", description: "x", input: z.object({}), execute: () => "plain" });
    const model = new ScriptedModel([{ toolCalls: [{ id: "e", name: "echo", args: {} }] }, { text: "done" }]);
    const agent = new Agent({
      model,
      tools: [echo],
      hooks: { postToolUse: () => ({ result: { at: new Date(0), big: 1n } }) },
    });
    const result = await agent.run("go", { sessionId: "hook", store: new MemoryStore() });
    const toolMessage = result.messages.find((message) => message.role === "tool") as ToolMessage;
    expect(toolMessage).toMatchObject({ isError: true, result: expect.stringMatching(/\$\.big: a bigint/) });
  });

  it("without a store the same rule holds, so result.deps is what the log projects to", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: "p", name: "probe", args: {} }] }, { text: "done" }]);
    const agent = new Agent({ model, tools: [probeTool({ when: new Date(0) })] });
    const result = await agent.run("go");
    expect(result.deps).toEqual({ seen: { value: { when: "1970-01-01T00:00:00.000Z" } } });
    checkProjections(result, {});
  });
});

describe("arguments a schema turned into non-JSON values are recorded in their JSON form", () => {
  const at = tool({
    name: "at",
    description: "Takes a time",
    input: z.object({ when: z.string().transform((text) => new Date(text)) }),
    execute: ({ when }) => when.getUTCFullYear(),
  });

  it.each([
    ["a top-level call", "at", { when: "2026-01-02" }],
    ["a nested call", "run_code", { code: 'return await tools.at({ when: "2026-01-02" });' }],
  ])("%s: the intent holds the ISO string the Date stands for, and the store accepts it", async (_name, name, args) => {
    const store = new SqliteStore({ path: ":memory:" });
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name, args }] }, { text: "done" }]);
    const agent = new Agent({ model, tools: [at, codeMode({ tools: ["at"] })] });
    const result = await agent.run("go", { sessionId: "dates", store });
    const intent = result.log.find(
      (event) => event.type === "tool_call" && (event.data as { toolName: string }).toolName === "at",
    );
    expect((intent?.data as { args: unknown }).args).toEqual({ when: "2026-01-02T00:00:00.000Z" });
    expect(await store.read("dates")).toHaveLength(result.log.length);
    await store.close();
  });
});
