import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import { projectUsage } from "../session/projections.js";
import { addUsage, type Usage } from "../session/usage.js";

/**
 * What a run used, read from its log: `projectUsage` (requests and tokens of its model responses,
 * one call per `tool_call` event) plus the usage its own sub-agents reported
 * (`subagent_completed`/`subagent_failed`).
 * Only the events of run `runId` count (a session may hold earlier runs). Used when a child run
 * failed and so has no `result.usage`.
 */
export function usageFromLog(log: readonly SessionEvent[], runId: string): Usage {
  const span = lastRun(log, runId);
  const events = span === undefined ? log : log.slice(span.start);
  let usage = projectUsage(events);
  for (const event of events) {
    if (event.type === "subagent_completed" || event.type === "subagent_failed") {
      const reported = (event.data as { usage?: Partial<Usage> }).usage;
      if (reported !== undefined) usage = addUsage(usage, reported);
    }
  }
  return usage;
}
