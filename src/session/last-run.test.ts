import { describe, expect, it } from "vitest";
import type { SessionEvent } from "./events.js";
import { lastRun } from "./last-run.js";

const log = (...types: [string, string?][]): SessionEvent[] =>
  types.map(([type, runId], index) => ({
    seq: index + 1,
    at: "2026-01-01T00:00:00.000Z",
    type,
    data: runId === undefined ? {} : { runId },
  })) as SessionEvent[];

describe("lastRun: the one scan for a session's last run", () => {
  it("finds the last run and how it ended", () => {
    const events = log(["run_started", "a"], ["run_completed"], ["run_started", "b"], ["run_failed"]);
    expect(lastRun(events)).toEqual({ start: 2, runId: "b", end: "failed" });
    expect(lastRun(events, "a")).toEqual({ start: 0, runId: "a", end: "completed" });
  });

  it("an open run (running, paused or interrupted) has no end; a resume reopens a failed run", () => {
    expect(lastRun(log(["run_started", "a"], ["user_message"]))?.end).toBeUndefined();
    expect(lastRun(log(["run_started", "a"], ["run_failed"], ["run_resumed"]))?.end).toBeUndefined();
    expect(lastRun(log(["run_started", "a"], ["run_failed"], ["run_resumed"], ["run_completed"]))?.end).toBe(
      "completed",
    );
  });

  it("is undefined for a log without runs, or without the run asked for", () => {
    expect(lastRun([])).toBeUndefined();
    expect(lastRun(log(["run_started", "a"]), "z")).toBeUndefined();
  });
});
