import { ContextUpdate } from "../context/context-update.js";
import { ContextUpdateError } from "../errors/context-update-error.js";
import { ApprovalPendingError, CancelledError, ToolRetryError } from "../errors/run-errors.js";
import { ToolFailedError } from "../errors/tool-failed-error.js";
import type { AnyTool } from "../tools/tool.js";
import { isToolContent } from "../tools/tool-content.js";
import { childSignal, raceAbort } from "./abort.js";
import { invalidUpdate, type Outcome, recordable, recordableResult } from "./recordable.js";
import { checkReplayComplete } from "./replay-check.js";
import type { RunState } from "./run-state.js";
import {
  failure,
  type PreparedCall,
  prepareToolCall,
  requestApprovals,
  type ToolCallPart,
} from "./tool-preparation.js";

export type { Outcome } from "./recordable.js";

/**
 * Runs the tool calls of one model turn. Sequential (default): each call sees the deps the earlier
 * calls left. Parallel: every call sees the deps from before the turn; results and updates are
 * recorded in the model's call order once all finish.
 */
export async function executeToolCalls<D extends object, O>(
  state: RunState<D, O>,
  calls: readonly ToolCallPart[],
): Promise<void> {
  const requesting = requestApprovals(state, calls);
  if (requesting) await requesting;
  if (!state.config.options.parallelToolCalls) {
    for (const call of calls) {
      const preparing = prepareToolCall(state, call);
      const prepared = preparing instanceof Promise ? await preparing : preparing;
      let outcome = prepared.type === "run" ? invoke(state, prepared, state.context.deps) : prepared.outcome;
      if (outcome instanceof Promise) outcome = await outcome;
      const settling = settle(state, prepared, outcome);
      if (settling) await settling;
    }
    return;
  }
  const turnDeps = state.context.deps;
  const prepared: PreparedCall<D>[] = [];
  for (const call of calls) prepared.push(await prepareToolCall(state, call));
  const settled = await Promise.allSettled(
    prepared.map((item) => (item.type === "run" ? invoke(state, item, turnDeps) : Promise.resolve(item.outcome))),
  );
  const rejected = settled.find((item) => item.status === "rejected");
  // A run pausing for approval keeps what the other calls of the turn did: their results are recorded.
  if (rejected && !(rejected.reason instanceof ApprovalPendingError)) throw rejected.reason;
  for (const [index, item] of prepared.entries()) {
    const outcome = settled[index];
    if (outcome?.status !== "fulfilled") continue;
    const settling = settle(state, item, outcome.value);
    if (settling) await settling;
  }
  if (rejected) throw rejected.reason;
}

function invoke<D extends object, O>(
  state: RunState<D, O>,
  prepared: Extract<PreparedCall<D>, { type: "run" }>,
  deps: D,
): Outcome<D> | Promise<Outcome<D>> {
  const { toolCallId } = prepared.call;
  const outcome = runTool(state, prepared.tool, toolCallId, prepared.args, deps);
  // A call re-run on resume must have replayed every nested call the log holds under it.
  if (state.resume?.nested === undefined || state.resume.nested.size === 0) return outcome;
  return Promise.resolve(outcome).then((value) => {
    checkReplayComplete(state, toolCallId);
    return value;
  });
}

/**
 * Runs a tool's `execute` with its timeout and the run's signal; errors become error outcomes (a
 * `ToolFailedError` keeps its update). The outcome is made recordable (`recordable`: JSON-normalized,
 * or an error naming the path) before anyone sees it. A synchronous tool's outcome is returned
 * without a promise, a race or an extra tick.
 */
export function runTool<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  toolCallId: string,
  args: unknown,
  deps: D,
  parentSignal: AbortSignal | undefined = state.config.signal,
): Outcome<D> | Promise<Outcome<D>> {
  const scope = childSignal(parentSignal, tool.timeoutMs);
  let returned: unknown;
  try {
    returned = tool.execute(args, state.runContext({ toolCallId, toolName: tool.name, signal: scope.signal, deps }));
  } catch (error) {
    scope.dispose();
    return failedOutcome(state, tool, scope, error);
  }
  if (!isThenable(returned)) {
    scope.dispose();
    return toOutcome<D>(tool.name, returned);
  }
  // A nested call that stopped the run (see `RunState.halt`) wins over whatever its tool made of it.
  return raceAbort(Promise.resolve(returned), scope.signal).then(
    (value) => {
      scope.dispose();
      state.throwIfHalted(toolCallId);
      return toOutcome<D>(tool.name, value);
    },
    (error: unknown) => {
      scope.dispose();
      state.throwIfHalted(toolCallId);
      return failedOutcome(state, tool, scope, error);
    },
  );
}

function toOutcome<D extends object>(toolName: string, value: unknown): Outcome<D> {
  if (isToolContent<D>(value)) {
    return recordable(toolName, { result: value.result, isError: false, content: value.content, update: value.update });
  }
  if (typeof value === "object" && value !== null && "update" in value && value.update instanceof ContextUpdate) {
    const result = (value as { result?: unknown }).result;
    return recordable(toolName, { result, isError: false, update: value.update as ContextUpdate<D> });
  }
  return recordable(toolName, { result: value, isError: false });
}

function failedOutcome<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  scope: { timedOut(): boolean },
  error: unknown,
): Outcome<D> {
  const runSignal = state.config.signal;
  if (runSignal?.aborted) throw new CancelledError(runSignal.reason);
  if (scope.timedOut()) return { result: `Tool "${tool.name}" timed out after ${tool.timeoutMs} ms`, isError: true };
  if (error instanceof ToolRetryError) return { result: failure(state, tool, error.message), isError: true };
  const message = error instanceof Error ? error.message : String(error);
  const result = `Tool "${tool.name}" failed: ${message}`;
  // A tool that failed after doing something records what it did.
  if (error instanceof ToolFailedError && error.update !== undefined) {
    return recordable(tool.name, { result, isError: true, update: error.update as ContextUpdate<D> });
  }
  return { result, isError: true };
}

/**
 * Records a call's outcome: the update through the one reducer, its events, then the tool result.
 * `postToolUse` sees only calls that ran. Synchronous (returns `undefined`) unless that hook or a stream
 * reader is to be awaited.
 */
function settle<D extends object, O>(
  state: RunState<D, O>,
  prepared: PreparedCall<D>,
  outcome: Outcome<D>,
): Promise<void> | undefined {
  // Refused calls (unknown tool, bad arguments, denied, rejected, settled in doubt) never ran; a
  // result and update settled by hand are made recordable here, a tool's own in `runTool`.
  if (prepared.type === "skip") return record(state, prepared, recordable(prepared.call.toolName, outcome));
  const hook = state.config.hooks.postToolUse;
  if (hook === undefined) return record(state, prepared, outcome);
  const { call, args } = prepared;
  const identity = { toolCallId: call.toolCallId, toolName: call.toolName };
  const { result, isError } = outcome;
  return Promise.resolve(hook({ ...identity, args, result, isError }, state.runContext(identity))).then((replaced) =>
    record(
      state,
      prepared,
      replaced
        ? {
            ...recordableResult(call.toolName, replaced.result, isError),
            update: outcome.update,
            content: outcome.content,
          }
        : outcome,
    ),
  );
}

/**
 * Records a recordable outcome (see `recordable`): its update first — also a failed call's, which
 * says what the tool did before failing — then the tool result.
 */
function record<D extends object, O>(
  state: RunState<D, O>,
  prepared: PreparedCall<D>,
  outcome: Outcome<D>,
): Promise<void> | undefined {
  const { call } = prepared;
  const identity = { toolCallId: call.toolCallId, toolName: call.toolName };
  let result = outcome.result;
  let isError = outcome.isError;
  if (outcome.update !== undefined) {
    try {
      state.applyUpdate(outcome.update, identity);
    } catch (error) {
      if (!(error instanceof ContextUpdateError)) throw error;
      result = invalidUpdate(call.toolName, error, isError ? result : undefined);
      isError = true;
    }
  }
  if (prepared.type === "run" && !isError) state.toolSucceeded(call.toolName);
  // Committed with the next call's intent or at the end of the step (one fsync, not two).
  const content = !isError && outcome.content !== undefined ? { content: outcome.content } : {};
  state.context = state.context.addMessage({ role: "tool", ...identity, result, isError, ...content });
  // A streaming run waits here for its reader.
  return state.publish(true);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
