import type { Job } from "bullmq";
import type { QueuedOutcome } from "../agent/run-queue-port.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import type { RunPayload } from "./queue-payload.js";

/** What a worker puts in a job's failure reason: the typed error, as JSON, after this marker. */
export const FAILURE_MARK = "nous:";

/**
 * How a run ended, from its job: a finished job's return value (what the worker saw), a failed job's
 * recorded error; from the session log when the job is gone (removed after a day); undefined while
 * it waits or runs.
 */
export async function outcomeOfJob(
  job: Job<RunPayload, QueuedOutcome> | undefined,
  runId: string,
  readLog: () => Promise<SessionEvent[]>,
): Promise<QueuedOutcome | undefined> {
  if (job === undefined) return outcomeOfLog(runId, await readLog());
  if (job.finishedOn === undefined) return undefined;
  if (job.failedReason === undefined || job.failedReason === "") return job.returnvalue ?? undefined;
  // Failed for good (the last attempt, or refused before it started).
  const reason = job.failedReason;
  if (reason.startsWith(FAILURE_MARK)) {
    const error = JSON.parse(reason.slice(FAILURE_MARK.length)) as { code: string; message: string; fault?: string };
    return { type: "failed", runId, ...error };
  }
  return { type: "failed", runId, code: "worker_failed", message: reason };
}

/** The outcome the log alone tells, for a run whose job no longer exists. */
export function outcomeOfLog(runId: string, events: readonly SessionEvent[]): QueuedOutcome {
  const span = lastRun(events, runId);
  if (span?.end === "completed") return { type: "completed", runId };
  if (span?.end === "failed") {
    const failed = events.findLast(
      (event) => event.type === "run_failed" && (event.data as { runId?: unknown }).runId === runId,
    );
    const error = (failed?.data as { error?: { code?: string; message?: string } } | undefined)?.error;
    return { type: "failed", runId, code: error?.code ?? "run_failed", message: error?.message ?? "" };
  }
  return {
    type: "failed",
    runId,
    code: span === undefined ? "run_lost" : "run_unfinished",
    message:
      span === undefined
        ? "the run's job is gone and the session log has no such run"
        : "the run's job is gone and its run did not finish: resume it (nous sessions resume)",
  };
}
