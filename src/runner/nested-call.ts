import { addCost } from "../cost/recorded-cost.js";
import type { NestedCall, NestedCallOutcome, RunSeam } from "../session/run-seam.js";
import { addUsage } from "../session/usage.js";
import { pauseForChild } from "./child-pause.js";
import { decideNested } from "./nested-approval.js";
import { refuseNested, runNested } from "./nested-record.js";
import { replayNested } from "./nested-replay.js";
import type { RunState } from "./run-state.js";

/**
 * The seam a run hands its tools. A nested call is checked like a direct one — schema, then
 * `preToolUse`, then the approval policy (`approval_requested`, then the handler's `approval_decided`;
 * without a handler the run pauses, see `decideNested`) and the tool-call budget — then run, journaled by the run
 * itself: its intent committed before the tool runs, its update and result recorded after, in
 * program order (see `runNested`). A resumed run re-running the parent replays it from the log.
 */
export function createSeam<D extends object, O>(state: RunState<D, O>): RunSeam {
  return {
    toolNames: [...state.config.tools.keys()],
    depth: state.config.depth,
    store: state.config.store,
    callTool: (call) =>
      callNested(state, call).catch((error: unknown) => {
        // A halt thrown into the calling tool ends that tool's call with it (see `RunState.throwIfHalted`).
        state.haltReached(call.parentToolCallId);
        throw error;
      }),
    addUsage(usage, cost) {
      state.usage = addUsage(state.usage, usage);
      if (cost !== undefined) state.cost = addCost(state.cost, cost);
    },
    pauseForChild: (child) => pauseForChild(state, child),
    rerunning: (toolCallId) =>
      state.resume?.inDoubt.has(toolCallId) === true || state.resume?.nested?.get(toolCallId)?.state === "started",
  };
}

async function callNested<D extends object, O>(state: RunState<D, O>, call: NestedCall): Promise<NestedCallOutcome> {
  // A run stopped by an earlier nested call starts nothing more.
  state.throwIfHalted();
  const started = performance.now();
  const { tools, hooks } = state.config;
  const tool = tools.get(call.toolName);
  const replayed = replayNested(state, call, tool, started);
  if (replayed !== undefined) return replayed;
  const refuse = (error: string) => refuseNested(state, call, error, started);
  if (tool === undefined)
    return refuse(`Unknown tool "${call.toolName}". Available tools: ${[...tools.keys()].join(", ")}.`);
  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  const context = state.runContext(identity);
  let checked = await tool.schema.validate(call.args);
  if (!checked.ok) return refuse(`Invalid arguments for tool "${tool.name}": ${checked.issues}`);

  const decision = await hooks.preToolUse?.({ ...identity, args: checked.value }, context);
  if (decision?.type === "deny") return refuse(`Tool call denied: ${decision.reason}`);
  if (decision?.type === "modify") {
    checked = await tool.schema.validate(decision.args);
    if (!checked.ok) return refuse(`Invalid arguments for tool "${tool.name}": ${checked.issues}`);
  }

  const needsApproval =
    typeof tool.needsApproval === "function" ? await tool.needsApproval(checked.value, context) : tool.needsApproval;
  if (needsApproval) {
    const answer = await decideNested(state, call, tool.name, checked.value, context);
    if (!answer.approved) {
      return refuse(`The user rejected this tool call${answer.reason ? `: ${answer.reason}` : "."}`);
    }
    if (answer.args !== undefined) {
      checked = await tool.schema.validate(answer.args);
      if (!checked.ok) return refuse(`Invalid arguments for tool "${tool.name}": ${checked.issues}`);
    }
  }
  return runNested(state, tool, call, checked.value, started, false);
}
