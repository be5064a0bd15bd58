import type { ContextUpdate } from "../context/context-update.js";
import type { Usage } from "./usage.js";

/** What a nested tool call (made from inside another tool) produced. Nothing of it is recorded yet. */
export interface NestedCallOutcome {
  readonly result: unknown;
  readonly isError: boolean;
  /** False when the call was refused before its tool ran (unknown tool, invalid args, denied, not approved). */
  readonly ran: boolean;
  /** The update the nested tool returned; the calling tool folds and records it. */
  readonly update?: ContextUpdate<object>;
  readonly durationMs: number;
}

/** A tool call made from inside a running tool (a code-mode program, a delegating tool). */
export interface NestedCall {
  readonly toolName: string;
  readonly args: unknown;
  /** The id of the call making it, recorded as the parent. */
  readonly parentToolCallId: string;
  /** An id for this nested call (unique within the run). */
  readonly toolCallId: string;
  /** The deps the nested tool sees (the caller keeps them current in program order). */
  readonly deps: object;
  readonly signal?: AbortSignal;
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
  callTool(call: NestedCall): Promise<NestedCallOutcome>;
  addUsage(usage: Partial<Usage>): void;
}
