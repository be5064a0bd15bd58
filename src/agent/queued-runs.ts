import { projectRunCost } from "../cost/run-cost.js";
import { QueuedRunFailedError } from "../errors/fleet-errors.js";
import type { ErrorFault } from "../errors/nous-error.js";
import { ApprovalPendingError, ToolInDoubtError } from "../errors/run-errors.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { RunResult } from "../runner/types.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import { projectDeps, projectMessages, projectRunUsage } from "../session/projections.js";
import type { QueuedOutcome, RunQueuePort } from "./run-queue-port.js";

/** The agent's queue, or the error saying how to give it one. */
export function queueOf(queue: RunQueuePort | undefined, method: string): RunQueuePort {
  if (queue !== undefined) return queue;
  throw new DefinitionError({
    message: `agent.${method} needs a run queue: new Agent({ …, queue: runQueue({ store }) }) with runQueue from "nous/fleet"`,
  });
}

/**
 * The result of a queued run, rebuilt from its session log once the run has ended: what `agent.run`
 * would have returned in the worker. Throws what the run ended with otherwise.
 */
export function queuedResult<O, D extends object>(
  sessionId: string,
  outcome: QueuedOutcome,
  events: readonly SessionEvent[],
): RunResult<O, D> {
  switch (outcome.type) {
    case "completed":
      return resultFromLog<O, D>(sessionId, outcome.runId, events);
    case "failed":
      throw new QueuedRunFailedError({
        sessionId,
        runCode: outcome.code,
        message: outcome.message,
        fault: outcome.fault as ErrorFault | undefined,
      });
    case "in_doubt": {
      const [call] = outcome.calls;
      if (call === undefined) throw new QueuedRunFailedError({ sessionId, runCode: "tool_in_doubt", message: "" });
      throw new ToolInDoubtError(call);
    }
    case "awaiting_approval":
      throw new ApprovalPendingError(outcome.pending);
    default:
      return outcome satisfies never;
  }
}

function resultFromLog<O, D extends object>(
  sessionId: string,
  runId: string,
  events: readonly SessionEvent[],
): RunResult<O, D> {
  const span = lastRun(events, runId);
  if (span === undefined || span.end !== "completed") {
    throw new QueuedRunFailedError({
      sessionId,
      runCode: "run_not_in_log",
      message: `the log has no completed run ${runId}`,
    });
  }
  const log = events.slice(span.start);
  const completed = log.findLast((event) => event.type === "run_completed");
  return {
    runId,
    output: (completed?.data as { output?: unknown } | undefined)?.output as O,
    deps: projectDeps(events, {} as D),
    messages: projectMessages(events),
    log,
    usage: projectRunUsage(log),
    cost: projectRunCost(log),
  };
}
