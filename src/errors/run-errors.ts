import { NousError, UserError } from "./nous-error.js";

/** A run limit was reached. The run's log so far is on `log`. */
export abstract class LimitError extends NousError {
  readonly fault = "limit" as const;
}

/** The run asked the model more times than `maxIterations` allows. */
export class MaxIterationsExceededError extends LimitError {
  readonly code = "max_iterations_exceeded";
  readonly maxIterations: number;

  constructor(maxIterations: number) {
    super({ message: `The run reached maxIterations (${maxIterations}) without a final answer` });
    this.maxIterations = maxIterations;
  }
}

export type UsageLimitName = "requests" | "toolCalls" | "inputTokens" | "outputTokens" | "totalTokens" | "costUsd";

/** A usage limit (requests, tool calls, tokens or `costUsd`) would be or was exceeded. */
export class UsageLimitExceededError extends LimitError {
  readonly code = "usage_limit_exceeded";
  readonly limit: UsageLimitName;
  readonly allowed: number;
  readonly actual: number;

  constructor(fields: { limit: UsageLimitName; allowed: number; actual: number }) {
    super({ message: `Usage limit ${fields.limit} exceeded: ${fields.actual} > ${fields.allowed}` });
    this.limit = fields.limit;
    this.allowed = fields.allowed;
    this.actual = fields.actual;
  }
}

/**
 * The run has a `costUsd` limit but its cost is not fully known: a response of a model without a
 * price (give the agent `pricing` for it), or one that was not priced (`pricing: false`).
 */
export class CostUnknownError extends LimitError {
  readonly code = "cost_unknown";
  readonly allowed: number;

  constructor(allowed: number) {
    super({
      message: `The run has a cost limit (${allowed} USD) but a model response had no known price; set pricing for the model`,
    });
    this.allowed = allowed;
  }
}

/** A sub-agent would nest deeper than the parent agent allows (`maxDepth`, default 3). */
export class DepthLimitExceededError extends LimitError {
  readonly code = "depth_limit_exceeded";
  readonly maxDepth: number;

  constructor(maxDepth: number) {
    super({ message: `Sub-agents may nest at most ${maxDepth} levels deep` });
    this.maxDepth = maxDepth;
  }
}

/** The caller aborted the run. */
export class CancelledError extends NousError {
  readonly code = "cancelled";
  readonly fault = "cancelled" as const;

  constructor(reason?: unknown) {
    super({ message: "The run was cancelled", cause: reason });
  }
}

/** The model did not behave as the run requires. */
export abstract class ModelBehaviorError extends NousError {
  readonly fault = "model" as const;
}

/** The model's structured output stayed invalid after every retry. */
export class OutputValidationError extends ModelBehaviorError {
  readonly code = "output_validation_failed";
  readonly issues: string;

  constructor(fields: { retries: number; issues: string }) {
    super({
      message: `The model's output did not match the output schema after ${fields.retries} retries: ${fields.issues}`,
    });
    this.issues = fields.issues;
  }
}

/** A tool needed more retries than it allows. */
export class ToolRetriesExceededError extends ModelBehaviorError {
  readonly code = "tool_retries_exceeded";
  readonly toolName: string;

  constructor(fields: { toolName: string; retries: number; lastProblem: string }) {
    super({
      message: `Tool "${fields.toolName}" exceeded its ${fields.retries} retries; last problem: ${fields.lastProblem}`,
    });
    this.toolName = fields.toolName;
  }
}

/**
 * Throw from a tool to ask the model to try again with a hint (for example "dates must be ISO 8601").
 * The model sees the message as the tool's result; the tool's `retries` bound how often.
 *
 * @example
 * if (!isIsoDate(args.date)) throw new ToolRetryError("Use an ISO 8601 date such as 2026-01-31");
 */
export class ToolRetryError extends NousError {
  readonly code = "tool_retry";
  readonly fault = "model" as const;

  constructor(hint: string) {
    super({ message: hint });
  }
}

/**
 * One step on the way from a root session down to an approval requested inside a sub-agent: a
 * session and the tool call in it (the delegating call, or, last, the call waiting for approval).
 */
export interface ApprovalPathStep {
  readonly sessionId: string;
  readonly toolCallId: string;
}

/** A tool call waiting for a decision. */
export interface PendingToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** Set for a nested call (code mode): the call that made it. */
  readonly parentToolCallId?: string;
  /** Set when the request is in a sub-agent's session, not the run's own: that session. */
  readonly sessionId?: string;
  /**
   * Set when the request is in a sub-agent's session: the delegating calls from the run's own
   * session down to the request (the last step is the request's session and call).
   */
  readonly path?: readonly ApprovalPathStep[];
}

/**
 * The run paused: tool calls need approval and the run has no approval handler. The requests are
 * in the log (`approval_requested`) — of this session, or of a sub-agent's (`pending[i].path`);
 * decide them and resume this session.
 */
export class ApprovalPendingError extends UserError {
  readonly code = "approval_pending";
  readonly pending: readonly PendingToolCall[];

  constructor(pending: readonly PendingToolCall[]) {
    super({
      message: `The run is waiting for approval of ${pending.map((call) => `${call.toolName} (${call.toolCallId})`).join(", ")}`,
    });
    this.pending = pending;
  }
}

/**
 * A resumed run found a tool call that was started but has no recorded result, and the tool is not
 * idempotent: it may or may not have had its effect. Settle it with `resolveInDoubt` and resume.
 */
export class ToolInDoubtError extends UserError {
  readonly code = "tool_in_doubt";
  readonly call: PendingToolCall;

  constructor(call: PendingToolCall) {
    super({
      message: `Tool call ${call.toolCallId} (${call.toolName}) was started before the interruption and has no result; it is not idempotent, so it is not run again without a decision`,
    });
    this.call = call;
  }
}

/** `run` on a session whose last run did not finish (resume it instead), or `resume` with nothing to resume. */
export class SessionStateError extends UserError {
  readonly code = "session_state";
}

/** A nested call as the log recorded it or as a replay made it. */
export interface NestedCallRecord {
  readonly toolName: string;
  readonly args: unknown;
}

/**
 * A resumed run re-ran a program (code mode, or another replayable tool) and it made a different
 * nested call than the log holds under that call id — another tool or other arguments — or ended
 * without making a call the log holds. The run stops rather than guess which effects happened;
 * nothing past the divergence ran. `recorded` is absent for a call the log does not have, `replayed`
 * for a recorded call the replay never made.
 *
 * @example
 * try { await agent.resume(id, { store }) } catch (error) {
 *   if (error instanceof ReplayDivergedError) console.log(error.toolCallId, error.recorded, error.replayed);
 * }
 */
export class ReplayDivergedError extends UserError {
  readonly code = "replay_diverged";
  readonly toolCallId: string;
  readonly parentToolCallId: string;
  readonly recorded: NestedCallRecord | undefined;
  readonly replayed: NestedCallRecord | undefined;

  constructor(fields: {
    toolCallId: string;
    parentToolCallId: string;
    recorded?: NestedCallRecord;
    replayed?: NestedCallRecord;
  }) {
    const show = (call: NestedCallRecord | undefined) =>
      call === undefined ? "no call" : `${call.toolName}(${JSON.stringify(call.args) ?? ""})`;
    super({
      message: `Replaying call ${fields.parentToolCallId} diverged from the log at nested call ${fields.toolCallId}: the log has ${show(fields.recorded)}, the replay made ${show(fields.replayed)}`,
    });
    this.toolCallId = fields.toolCallId;
    this.parentToolCallId = fields.parentToolCallId;
    this.recorded = fields.recorded;
    this.replayed = fields.replayed;
  }
}
