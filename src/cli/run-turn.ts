import {
  type ApprovalPendingError,
  type InDoubtResolver,
  NousError,
  type PendingToolCall,
  type Prompt,
  type RunResult,
  type SessionStore,
  type UsageLimits,
} from "../index.js";
import type { AnyAgent } from "./agent-loader.js";
import { type CliIo, describeError, EXIT, exitCodeOf, formatDuration, paint, terminalText } from "./cli-support.js";
import { formatCost, formatUsage, preview, renderStream, type ToolCallReport } from "./render-stream.js";

/** How one turn (a run, or the resume of a paused run) ended. */
export type TurnOutcome =
  | { readonly status: "completed"; readonly result: RunResult<unknown, object> }
  | { readonly status: "awaiting_approval"; readonly pending: readonly PendingToolCall[]; readonly error: unknown }
  | { readonly status: "cancelled"; readonly error: unknown }
  | { readonly status: "failed"; readonly error: unknown };

export interface TurnOptions {
  readonly sessionId: string;
  readonly store: SessionStore;
  readonly deps: Record<string, unknown>;
  readonly signal?: AbortSignal;
  readonly usageLimits?: UsageLimits;
  /** Go on with another agent than the one that ran the session (recorded as `agent_changed`). */
  readonly allowAgentChange?: boolean;
  /** No text or tool lines (for --json). */
  readonly quiet: boolean;
}

function outcomeOf(error: unknown): TurnOutcome {
  if (NousError.isInstance(error) && error.code === "approval_pending") {
    return { status: "awaiting_approval", pending: (error as ApprovalPendingError).pending, error };
  }
  if (NousError.isInstance(error) && error.code === "cancelled") return { status: "cancelled", error };
  return { status: "failed", error };
}

/** Runs one prompt on a session, streaming it to the terminal. Never throws for a run failure. */
export async function runTurn(
  io: CliIo,
  agent: AnyAgent,
  prompt: Prompt,
  options: TurnOptions,
  toolCalls: ToolCallReport[] = [],
): Promise<TurnOutcome> {
  try {
    const events = agent.stream(prompt, {
      sessionId: options.sessionId,
      store: options.store,
      deps: options.deps,
      signal: options.signal,
      usageLimits: options.usageLimits,
      ...(options.allowAgentChange ? { allowAgentChange: true } : {}),
    });
    const result = await renderStream(io, events, { quiet: options.quiet, toolCalls });
    return { status: "completed", result };
  } catch (error) {
    return outcomeOf(error);
  }
}

/** Resumes a paused or interrupted run of a session (no streaming: `resume` returns the result). */
export async function resumeTurn(
  agent: AnyAgent,
  options: Omit<TurnOptions, "quiet" | "usageLimits"> & { readonly resolveInDoubt?: InDoubtResolver },
): Promise<TurnOutcome> {
  try {
    const result = await agent.resume(options.sessionId, {
      store: options.store,
      deps: options.deps,
      signal: options.signal,
      ...(options.resolveInDoubt === undefined ? {} : { resolveInDoubt: options.resolveInDoubt }),
      ...(options.allowAgentChange ? { allowAgentChange: true } : {}),
    });
    return { status: "completed", result: result as RunResult<unknown, object> };
  } catch (error) {
    return outcomeOf(error);
  }
}

/** The exit code of an outcome. */
export function exitCodeOfOutcome(outcome: TurnOutcome): number {
  switch (outcome.status) {
    case "completed":
      return EXIT.ok;
    case "awaiting_approval":
      return EXIT.awaitingApproval;
    case "cancelled":
      return EXIT.interrupted;
    case "failed":
      return exitCodeOf(outcome.error);
  }
}

/** The JSON form of an outcome, for --json. */
export function outcomeJson(outcome: TurnOutcome, sessionId: string, toolCalls: readonly ToolCallReport[]) {
  const base = { sessionId, status: outcome.status, toolCalls };
  if (outcome.status === "completed") {
    const { result } = outcome;
    const { runId, output, usage, cost } = result;
    return { ...base, runId, output, usage, cost, deps: jsonPart(result.deps) };
  }
  const error = outcome.error;
  const described = NousError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: "error", message: error instanceof Error ? error.message : String(error) };
  return {
    ...base,
    error: described,
    ...(outcome.status === "awaiting_approval" ? { pending: outcome.pending } : {}),
  };
}

function jsonPart(deps: object): unknown {
  try {
    return JSON.parse(JSON.stringify(deps));
  } catch {
    return undefined;
  }
}

/**
 * Prints how a turn ended on stderr: usage, or the approval to decide (with `--agent` when an agent
 * file ran, as deciding needs it), or the error.
 */
export function reportOutcome(
  io: CliIo,
  outcome: TurnOutcome,
  sessionId: string,
  startedAt: number,
  agentFile?: string,
): void {
  const colors = paint(io);
  const elapsed = formatDuration(Date.now() - startedAt);
  switch (outcome.status) {
    case "completed":
      io.err(
        colors.dim(`Usage: ${formatUsage(outcome.result.usage)} · ${formatCost(outcome.result.cost)} · ${elapsed}\n`),
      );
      return;
    case "awaiting_approval":
      io.err(colors.yellow(`Waiting for approval (session ${sessionId}):\n`));
      for (const call of outcome.pending) {
        // A sub-agent's request is decided in its own session (then this session resumes).
        const where = call.sessionId ?? sessionId;
        const via = where === sessionId ? "" : `  in sub-agent session ${where}`;
        io.err(`  ${terminalText(call.toolName)}(${preview(call.args, 120)})  call ${call.toolCallId}${via}\n`);
        const agent = agentFile === undefined ? "" : ` --agent ${terminalText(agentFile)}`;
        io.err(
          colors.dim(`  nous approvals approve ${where} ${call.toolCallId}${agent}   (or: reject … --reason "…")\n`),
        );
      }
      return;
    case "cancelled":
      io.err(colors.yellow(`Cancelled after ${elapsed}; the session is kept (${sessionId}).\n`));
      return;
    case "failed":
      io.err(`${colors.red("Error:")} ${describeError(outcome.error)}\n`);
      return;
  }
}
