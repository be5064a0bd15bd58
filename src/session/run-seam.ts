import type { RunCost } from "../cost/recorded-cost.js";
import type { PendingToolCall } from "../errors/run-errors.js";
import type { Usage } from "./usage.js";

/**
 * What a nested tool call (made from inside another tool) produced. The run has already recorded
 * it — intent, update, result — and folded its update into deps: the caller records and folds
 * nothing of it.
 */
export interface NestedCallOutcome {
  readonly result: unknown;
  readonly isError: boolean;
  /** False when the call was refused before its tool ran (unknown tool, invalid args, denied, not approved). */
  readonly ran: boolean;
  /** True when the outcome came from the log: a resumed run replaying the parent; the tool did not run again. */
  readonly replayed: boolean;
  readonly durationMs: number;
}

/** A tool call made from inside a running tool (a code-mode program, a delegating tool). */
export interface NestedCall {
  readonly toolName: string;
  readonly args: unknown;
  /** The id of the call making it, recorded as the parent. */
  readonly parentToolCallId: string;
  /**
   * An id for this nested call, unique within the run and the same when the parent is replayed on
   * resume (the log is matched by it): derive it from the parent's id and the call's place in
   * program order, as code mode does (`<parent>.<n>`).
   */
  readonly toolCallId: string;
  readonly signal?: AbortSignal;
}

/** A sub-agent run that paused for approval, as its delegating tool reports it to the parent run. */
export interface ChildPause {
  /** The parent run's call that started the child. */
  readonly toolCallId: string;
  readonly childSessionId: string;
  readonly childRunId: string;
  /** The child's name, as recorded. */
  readonly agent: string;
  /** The calls the child waits for (its `ApprovalPendingError`'s `pending`). */
  readonly pending: readonly PendingToolCall[];
}

/**
 * The handle a tool uses to dispatch back into its run: nested tool calls go through the same
 * validation, hooks and approval policy as direct ones, and usage (a sub-agent's) is added to the
 * run's. Present on `RunContext.seam` when the tool runs inside an agent run.
 */
export interface RunSeam {
  /** Names of the tools of the run. */
  readonly toolNames: readonly string[];
  /** Sub-agent nesting depth of the run (0 for a top-level run). */
  readonly depth: number;
  /** The run's session store, when it has one (opaque here; a `SessionStore`). */
  readonly store: object | undefined;
  /**
   * Runs a nested call, recorded like a direct one: its intent (`tool_call` with `parentToolCallId`)
   * committed before the tool runs, then its `context_update` (folded into the run's deps) and its
   * `tool_call_result`; a refused call as `tool_call_refused`. The nested tool sees the run's deps
   * as they are when the call starts.
   */
  callTool(call: NestedCall): Promise<NestedCallOutcome>;
  /** Adds a sub-agent's usage (and its cost) to the run's. */
  addUsage(usage: Partial<Usage>, cost?: RunCost): void;
  /**
   * A sub-agent of this call paused for approval: the run records `subagent_paused`, commits it
   * and pauses too (the call stays open and runs again on resume, when the child resumes). Resolves
   * with the error the delegating tool must throw.
   */
  pauseForChild(child: ChildPause): Promise<unknown>;
  /**
   * Whether this call of the run is running again on resume (it paused, or was left in doubt): a
   * sub-agent it started then is resumed, or its result taken, instead of starting another.
   */
  rerunning(toolCallId: string): boolean;
}
