import { type ErrorFault, NousError } from "./nous-error.js";

/** Why a compaction failed: the summarization call failed, or it answered no summary text. */
export type CompactionProblem = "summary_call_failed" | "empty_summary";

/**
 * A compaction's summarization call failed (its `cause` is the model's error, its `fault` that
 * error's: a provider error stays the provider's fault) or answered no text. The run fails with it
 * like with any failed model call: its `model_request` and `run_failed` are in the log, nothing is
 * compacted and no event is lost; the session can go on (or be resumed) and compaction is tried again.
 *
 * @example
 * try { await agent.run("next", { sessionId }) } catch (error) {
 *   if (error instanceof CompactionFailedError) console.log(error.problem, error.cause);
 * }
 */
export class CompactionFailedError extends NousError {
  readonly code = "compaction_failed";
  readonly fault: ErrorFault;
  readonly problem: CompactionProblem;

  constructor(fields: { problem: CompactionProblem; model: string; cause?: unknown }) {
    const reason =
      fields.problem === "empty_summary"
        ? "answered no summary text"
        : `failed: ${fields.cause instanceof Error ? fields.cause.message : String(fields.cause)}`;
    super({ message: `Compaction: the summarization call to ${fields.model} ${reason}`, cause: fields.cause });
    this.problem = fields.problem;
    this.fault =
      fields.problem === "empty_summary"
        ? "model"
        : NousError.isInstance(fields.cause)
          ? fields.cause.fault
          : "internal";
  }
}
