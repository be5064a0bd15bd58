import type { RunCost } from "../cost/recorded-cost.js";
import { projectRunCost } from "../cost/run-cost.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import { projectRunUsage } from "../session/projections.js";
import type { Usage } from "../session/usage.js";

/**
 * What a run used, read from its log (`projectRunUsage`: its model responses and tool calls, plus
 * the usage its own sub-agents reported). Only the events of run `runId` count (a session may hold
 * earlier runs). Used when a child run failed and so has no `result.usage`, and when a parent run
 * takes the result of a child run that already completed.
 */
export function usageFromLog(log: readonly SessionEvent[], runId: string): Usage {
  const span = lastRun(log, runId);
  return projectRunUsage(span === undefined ? log : log.slice(span.start));
}

/** What a run cost, read from its log (`projectRunCost`), as `usageFromLog` reads its usage. */
export function costFromLog(log: readonly SessionEvent[], runId: string): RunCost {
  const span = lastRun(log, runId);
  return projectRunCost(span === undefined ? log : log.slice(span.start));
}
