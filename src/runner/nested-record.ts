import type { ContextUpdate } from "../context/context-update.js";
import { ContextUpdateError } from "../errors/context-update-error.js";
import { canonicalJson } from "../session/canonical-json.js";
import { intentArgs, toJsonValue } from "../session/json-value.js";
import type { NestedCall, NestedCallOutcome } from "../session/run-seam.js";
import { addUsage } from "../session/usage.js";
import type { AnyTool } from "../tools/tool.js";
import { invalidUpdate, recordableResult } from "./recordable.js";
import type { RunState } from "./run-state.js";
import { checkToolCallLimit } from "./stop-rules.js";
import { runTool } from "./tool-execution.js";

/** Milliseconds since `started`, to the microsecond. */
export function since(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** Whether two values are the same JSON data (key order aside). */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  try {
    return (
      canonicalJson(JSON.parse(JSON.stringify(left) ?? "null")) ===
      canonicalJson(JSON.parse(JSON.stringify(right) ?? "null"))
    );
  } catch {
    return false;
  }
}

/** Records a nested call refused before it ran: no intent (nothing ran), one `tool_call_refused`. */
export function refuseNested<D extends object, O>(
  state: RunState<D, O>,
  call: NestedCall,
  error: string,
  started: number,
): NestedCallOutcome {
  const durationMs = since(started);
  state.record("tool_call_refused", {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    parentToolCallId: call.parentToolCallId,
    args: call.args,
    isError: true,
    error,
    durationMs,
  });
  return { result: error, isError: true, ran: false, replayed: false, durationMs };
}

/**
 * Runs a nested call that passed its checks, journaled: counts it, records its intent and waits
 * until the store has it (no effect before its intent), runs the tool on the run's current deps,
 * then records its update (folded into the run's deps) and its result.
 */
export async function runNested<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  call: NestedCall,
  args: unknown,
  started: number,
  rerun: boolean,
): Promise<NestedCallOutcome> {
  checkToolCallLimit(state);
  state.usage = addUsage(state.usage, { toolCalls: 1 });
  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  state.record("tool_call", {
    ...identity,
    parentToolCallId: call.parentToolCallId,
    args: intentArgs(args, () => call.args),
    ...(sameJson(call.args, args) ? {} : { requestedArgs: toJsonValue(call.args) }),
    ...(rerun ? { rerun } : {}),
  });
  try {
    await state.commit();
  } catch (error) {
    throw state.halt(error);
  }
  state.shareDeps();
  // Recordable already (JSON-normalized, see `runTool`), as the hook, the log and the program see it.
  let outcome = await runTool(state, tool, call.toolCallId, args, state.context.deps, call.signal);
  const hook = state.config.hooks.postToolUse;
  if (hook !== undefined) {
    const { result, isError } = outcome;
    const replaced = await hook({ ...identity, args, result, isError }, state.runContext(identity));
    if (replaced) outcome = { ...recordableResult(tool.name, replaced.result, isError), update: outcome.update };
  }
  const finished = await finishNested(state, call, tool.name, outcome, started);
  if (!finished.isError) state.toolSucceeded(tool.name);
  return finished;
}

/**
 * Records how a nested call ended — a recordable outcome (see `recordable`): its update through the
 * one reducer (a `context_update` naming the nested call and its parent, then the update's log
 * events), also when the call failed, then its `tool_call_result`. An update the reducer refuses
 * becomes an error result, as for a direct call.
 */
export async function finishNested<D extends object, O>(
  state: RunState<D, O>,
  call: NestedCall,
  toolName: string,
  outcome: { result: unknown; isError: boolean; update?: ContextUpdate<D> | undefined },
  started: number,
): Promise<NestedCallOutcome> {
  const source = { toolCallId: call.toolCallId, toolName, parentToolCallId: call.parentToolCallId };
  let { result, isError } = outcome;
  const update = outcome.update;
  if (update !== undefined) {
    try {
      state.applyUpdate(update, source);
    } catch (error) {
      if (!(error instanceof ContextUpdateError)) throw error;
      result = invalidUpdate(toolName, error, isError ? result : undefined);
      isError = true;
    }
  }
  const durationMs = since(started);
  state.record("tool_call_result", { ...source, result, isError, durationMs });
  // Delivered to a stream's reader now, not waited on: the calling tool is still running.
  state.publish(false);
  return { result, isError, ran: true, replayed: false, durationMs };
}
