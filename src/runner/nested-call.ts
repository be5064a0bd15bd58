import type { NestedCall, NestedCallOutcome, RunSeam } from "../session/run-seam.js";
import { addUsage } from "../session/usage.js";
import type { RunState } from "./run-state.js";
import { checkToolCallLimit } from "./stop-rules.js";
import { runTool } from "./tool-execution.js";

/**
 * The seam a run hands its tools. A nested call is checked like a direct one — schema, then
 * `preToolUse`, then the approval policy (asked through the approval handler; without one, a call
 * that needs approval fails closed) and the tool-call budget — then run. It records nothing: the
 * calling tool records it (as a `tool_call` log event) and folds its update in program order.
 */
export function createSeam<D extends object, O>(state: RunState<D, O>): RunSeam {
  return {
    toolNames: [...state.config.tools.keys()],
    depth: state.config.depth,
    store: state.config.store,
    callTool: (call) => callNested(state, call),
    addUsage(usage) {
      state.usage = addUsage(state.usage, usage);
    },
  };
}

async function callNested<D extends object, O>(state: RunState<D, O>, call: NestedCall): Promise<NestedCallOutcome> {
  const started = performance.now();
  let ran = false;
  const done = (result: unknown, isError: boolean, update?: NestedCallOutcome["update"]): NestedCallOutcome => ({
    result: result === undefined ? null : result,
    isError,
    ran,
    ...(update ? { update } : {}),
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  });
  const { tools, hooks, options } = state.config;
  const tool = tools.get(call.toolName);
  if (tool === undefined)
    return done(`Unknown tool "${call.toolName}". Available tools: ${[...tools.keys()].join(", ")}.`, true);
  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  const context = state.runContext({ ...identity, deps: call.deps as D });
  let checked = await tool.schema.validate(call.args);
  if (!checked.ok) return done(`Invalid arguments for tool "${tool.name}": ${checked.issues}`, true);

  const decision = await hooks.preToolUse?.({ ...identity, args: checked.value }, context);
  if (decision?.type === "deny") return done(`Tool call denied: ${decision.reason}`, true);
  if (decision?.type === "modify") {
    checked = await tool.schema.validate(decision.args);
    if (!checked.ok) return done(`Invalid arguments for tool "${tool.name}": ${checked.issues}`, true);
  }

  const needsApproval =
    typeof tool.needsApproval === "function" ? await tool.needsApproval(checked.value, context) : tool.needsApproval;
  if (needsApproval) {
    if (options.approvalHandler === undefined) {
      return done(`Tool "${tool.name}" needs approval, which a nested call cannot wait for; it was not run.`, true);
    }
    const answer = await options.approvalHandler({ ...identity, args: checked.value }, context);
    if (answer.type === "reject")
      return done(`The user rejected this tool call${answer.reason ? `: ${answer.reason}` : "."}`, true);
    if (answer.type === "edit") {
      checked = await tool.schema.validate(answer.args);
      if (!checked.ok) return done(`Invalid arguments for tool "${tool.name}": ${checked.issues}`, true);
    }
  }

  checkToolCallLimit(state);
  state.usage = addUsage(state.usage, { toolCalls: 1 });
  ran = true;
  const outcome = await runTool(state, tool, call.toolCallId, checked.value, call.deps as D, call.signal);
  let result: unknown = outcome.result === undefined ? null : outcome.result;
  const replaced = await hooks.postToolUse?.(
    { ...identity, args: checked.value, result, isError: outcome.isError },
    context,
  );
  if (replaced) result = replaced.result;
  return done(result, outcome.isError, outcome.isError ? undefined : (outcome.update as NestedCallOutcome["update"]));
}
