import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../session/events.js";
import { readNestedJournal } from "./nested-journal.js";

const events = (items: [type: string, data: unknown][]): SessionEvent[] =>
  items.map(([type, data], index) => ({ seq: index + 1, at: "2026-01-01T00:00:00.000Z", type, data }));

describe("readNestedJournal", () => {
  it("reads each nested call's state from the log: refused, started (in doubt), done; later events supersede", () => {
    const nested = { parentToolCallId: "p", toolName: "charge" };
    const journal = readNestedJournal(
      events([
        ["tool_call", { toolCallId: "p", toolName: "run_code", args: {} }], // top-level: not a nested call
        [
          "tool_call_refused",
          { toolCallId: "p.1", ...nested, args: { x: 1 }, isError: true, error: "no", durationMs: 1 },
        ],
        ["tool_call", { toolCallId: "p.2", ...nested, args: { amount: 20 }, requestedArgs: { amount: 2 } }],
        ["context_update", { toolCallId: "p.2", ...nested, operations: [] }],
        ["tool_call_result", { toolCallId: "p.2", ...nested, result: "ok", isError: false, durationMs: 3 }],
        ["tool_call", { toolCallId: "p.3", ...nested, args: { amount: 3 } }],
        ["tool_call", { toolCallId: "p.3", ...nested, args: { amount: 3 }, rerun: true }],
        ["tool_call", { toolCallId: "p.4", ...nested, args: { amount: 4 } }],
        // the shape before nested calls were journaled: one record with the result, at the program's end
        ["tool_call", { toolCallId: "p.5", ...nested, args: {}, isError: true, error: "failed", durationMs: 2 }],
      ]),
    );
    expect([...journal.keys()]).toEqual(["p.1", "p.2", "p.3", "p.4", "p.5"]);
    expect(journal.get("p.1")).toEqual({
      state: "refused",
      ...nested,
      requested: { x: 1 },
      error: "no",
      durationMs: 1,
    });
    expect(journal.get("p.2")).toEqual({
      state: "done",
      ...nested,
      args: { amount: 20 },
      requested: { amount: 2 },
      result: "ok",
      isError: false,
      durationMs: 3,
    });
    expect(journal.get("p.3")).toEqual({ state: "started", ...nested, args: { amount: 3 }, requested: { amount: 3 } });
    expect(journal.get("p.4")?.state).toBe("started");
    expect(journal.get("p.5")).toMatchObject({ state: "done", result: "failed", isError: true });
  });
});
