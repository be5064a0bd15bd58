import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../session/events.js";
import { TIMELINE_SCRIPT } from "./page-script-timeline.js";
import { VIEWS_SCRIPT } from "./page-script-views.js";
import { sentSession } from "./test-support/recorded-sessions.js";

type Timing = { rel: number; dur?: number; durLabel?: string };
// The page script is plain JavaScript; its functions that touch no DOM run here as they do in the page.
const page = new Function(
  `${VIEWS_SCRIPT}\n${TIMELINE_SCRIPT}\nreturn { eventTiming, formatMs, flattenTree, eventTree };`,
)() as {
  eventTiming(events: readonly SessionEvent[]): Map<number, Timing>;
  formatMs(ms: number): string;
  flattenTree(roots: unknown[]): { event: SessionEvent; depth: number }[];
  eventTree(events: readonly SessionEvent[]): unknown[];
};

describe("the timeline's times and durations", () => {
  const { events, seqs } = sentSession();
  const timing = page.eventTiming(events);

  it("times each event from its run's start and pairs requests, calls and runs with their ends", () => {
    expect(timing.get(seqs.retry)).toEqual({ rel: 60 });
    expect(timing.get(seqs.request)).toMatchObject({ rel: 10, dur: 2502, durLabel: "until its response" });
    expect(timing.get(seqs.response)).toMatchObject({ dur: 812, durLabel: "latency" });
    expect(timing.get(seqs.call)).toMatchObject({ dur: 250, durLabel: "until its result" });
    expect(timing.get(1)).toMatchObject({ rel: 0, dur: 3301, durLabel: "until run failed" });
    // A request cut off has no response, so no duration.
    expect(timing.get(seqs.secondRequest)?.dur).toBeUndefined();
  });

  it("restarts the clock at a resumed run", () => {
    const at = (ms: number) => new Date(Date.parse("2026-01-05T10:00:00.000Z") + ms).toISOString();
    const log = [
      { seq: 1, at: at(0), type: "run_started", data: { runId: "a" } },
      { seq: 2, at: at(100), type: "run_paused", data: { runId: "a", pending: [] } },
      { seq: 3, at: at(60_000), type: "run_resumed", data: { runId: "b" } },
      { seq: 4, at: at(60_500), type: "run_completed", data: { runId: "b" } },
    ] as SessionEvent[];
    const times = page.eventTiming(log);
    expect([...times.values()].map((entry) => entry.rel)).toEqual([0, 100, 0, 500]);
    expect(times.get(3)?.dur).toBe(500);
    expect(page.formatMs(61_000)).toBe("1 min 01 s");
  });

  it("flattens the nested tree in order, with depths", () => {
    const rows = page.flattenTree(page.eventTree(events));
    expect(rows.map((row) => row.event.seq)).toEqual(events.map((event) => event.seq));
    const at = "2026-01-05T10:00:00.000Z";
    const nested = [
      { seq: 1, at, type: "tool_call", data: { toolCallId: "t1", toolName: "run_code", args: {} } },
      { seq: 2, at, type: "tool_call", data: { toolCallId: "n1", toolName: "add", args: {}, parentToolCallId: "t1" } },
      {
        seq: 3,
        at,
        type: "tool_call_result",
        data: { toolCallId: "n1", toolName: "add", parentToolCallId: "t1", result: 3, isError: false, durationMs: 1 },
      },
      { seq: 4, at, type: "tool_result", data: { toolCallId: "t1", toolName: "run_code", result: 3, isError: false } },
    ] as SessionEvent[];
    // A nested call's duration is the one its result records.
    expect(page.eventTiming(nested).get(2)).toMatchObject({ dur: 1, durLabel: "until its result" });
    expect(page.flattenTree(page.eventTree(nested)).map((row) => [row.event.seq, row.depth])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 0],
    ]);
  });
});
