import type { SessionEvent } from "./events.js";

/** Where a run's events start in a session log, and how the run ended (so far). */
export interface RunSpan {
  /** Index of its `run_started` event. */
  readonly start: number;
  readonly runId: string;
  /** `completed` or `failed` when that is the run's last lifecycle event; undefined while it is open (running, paused, interrupted). */
  readonly end: "completed" | "failed" | undefined;
}

/**
 * The last run of a session log (from its last `run_started`), or the run `runId` when given;
 * undefined when the log has no such run. A `run_resumed` after a `run_failed` reopens the run.
 *
 * @example
 * lastRun(await store.read("s1"))?.end; // "completed"
 */
export function lastRun(events: readonly SessionEvent[], runId?: string): RunSpan | undefined {
  let start = -1;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type !== "run_started") continue;
    if (runId === undefined || (event.data as { runId?: unknown }).runId === runId) {
      start = index;
      break;
    }
  }
  if (start === -1) return undefined;
  let end: RunSpan["end"];
  for (let index = start + 1; index < events.length; index++) {
    const type = events[index]?.type;
    if (type === "run_started") break;
    if (type === "run_completed") end = "completed";
    else if (type === "run_failed") end = "failed";
    else if (type === "run_resumed") end = undefined;
  }
  return { start, runId: String((events[start]?.data as { runId?: unknown }).runId), end };
}
