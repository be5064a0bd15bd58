import { ReplayDivergedError, ToolInDoubtError } from "../errors/run-errors.js";
import type { NestedCall, NestedCallOutcome } from "../session/run-seam.js";
import type { AnyTool } from "../tools/tool.js";
import type { NestedJournalEntry } from "./nested-journal.js";
import { finishNested, runNested, sameJson } from "./nested-record.js";
import { recordable } from "./recordable.js";
import type { InDoubtDecision, RunState } from "./run-state.js";

/**
 * A nested call of a parent the resumed run is re-running, matched by its id against the log:
 * undefined when the log has no such call, or only its approval request (it runs as a new one, and
 * finds the recorded decision). A call with a recorded result or
 * refusal returns it (nothing runs, nothing is recorded, its update is already in deps); a call with
 * an intent and no result is in doubt: re-run if its tool is idempotent, else as `resolveInDoubt`
 * decides, else `ToolInDoubtError` naming the nested call. Another tool or other arguments under a
 * recorded id stop the run with `ReplayDivergedError`.
 */
export function replayNested<D extends object, O>(
  state: RunState<D, O>,
  call: NestedCall,
  tool: AnyTool<D> | undefined,
  started: number,
): Promise<NestedCallOutcome> | undefined {
  const entry = state.resume?.nested?.get(call.toolCallId);
  if (entry === undefined) return undefined;
  state.replayedNested.add(call.toolCallId);
  if (
    entry.parentToolCallId !== call.parentToolCallId ||
    entry.toolName !== call.toolName ||
    !sameJson(entry.requested, call.args)
  ) {
    const diverged = new ReplayDivergedError({
      toolCallId: call.toolCallId,
      parentToolCallId: call.parentToolCallId,
      recorded: { toolName: entry.toolName, args: entry.requested },
      replayed: { toolName: call.toolName, args: call.args },
    });
    return Promise.reject(state.halt(diverged));
  }
  switch (entry.state) {
    case "requested":
      // Asked for approval and not run: it goes through its checks again and finds the decision.
      return undefined;
    case "refused":
      return Promise.resolve({
        result: entry.error,
        isError: true,
        ran: false,
        replayed: true,
        durationMs: entry.durationMs,
      });
    case "done":
      return Promise.resolve({
        result: entry.result,
        isError: entry.isError,
        ran: true,
        replayed: true,
        durationMs: entry.durationMs,
      });
    case "started":
      return settleInDoubt(state, call, tool, entry, started);
    default: {
      const unhandled: never = entry;
      throw new TypeError(`unknown journal entry ${JSON.stringify(unhandled)}`);
    }
  }
}

/** A nested call that started and has no result: it may or may not have had its effect. */
async function settleInDoubt<D extends object, O>(
  state: RunState<D, O>,
  call: NestedCall,
  tool: AnyTool<D> | undefined,
  entry: Extract<NestedJournalEntry, { state: "started" }>,
  started: number,
): Promise<NestedCallOutcome> {
  // The recorded intent holds the arguments that were decided (hooks, approval edits): a re-run uses them.
  const identity = { toolCallId: call.toolCallId, toolName: entry.toolName, args: entry.args };
  // A call whose sub-agent paused the run runs again: its child resumes.
  if (tool !== undefined && (tool.idempotent || state.resume?.paused?.has(call.toolCallId))) {
    return runNested(state, tool, call, entry.args, started, true);
  }
  const resolver = state.config.resolveInDoubt;
  if (resolver === undefined) throw state.halt(new ToolInDoubtError(identity));
  let decision: InDoubtDecision<D>;
  try {
    decision = await resolver(identity);
  } catch (error) {
    throw state.halt(error);
  }
  switch (decision.type) {
    case "rerun":
      if (tool === undefined) {
        const missing = `Tool "${entry.toolName}" is not a tool of this agent; the call cannot run again`;
        return finishNested(state, call, entry.toolName, { result: missing, isError: true }, started);
      }
      return runNested(state, tool, call, entry.args, started, true);
    case "result": {
      // A decision may carry the call's update: folded like the tool's own.
      const update = decision.update;
      const outcome = recordable(entry.toolName, {
        result: decision.result,
        isError: decision.isError ?? false,
        update,
      });
      return finishNested(state, call, entry.toolName, outcome, started);
    }
    default: {
      const unhandled: never = decision;
      throw new TypeError(`unknown in-doubt decision ${JSON.stringify(unhandled)}`);
    }
  }
}
