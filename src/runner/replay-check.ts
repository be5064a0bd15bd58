import { ReplayDivergedError } from "../errors/run-errors.js";
import type { RunState } from "./run-state.js";

/**
 * After a re-run parent returned: every nested call the log holds under it must have been made
 * again. One the replay never reached had (or may have had) an effect the new result does not
 * account for, so the run stops with `ReplayDivergedError`.
 */
export function checkReplayComplete<D extends object, O>(state: RunState<D, O>, parentToolCallId: string): void {
  const journal = state.resume?.nested;
  if (journal === undefined) return;
  for (const [toolCallId, entry] of journal) {
    if (entry.parentToolCallId !== parentToolCallId || state.replayedNested.has(toolCallId)) continue;
    throw state.halt(
      new ReplayDivergedError({
        toolCallId,
        parentToolCallId,
        recorded: { toolName: entry.toolName, args: entry.requested },
      }),
    );
  }
}
