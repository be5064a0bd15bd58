import type { SessionEvent } from "../session/events.js";

/**
 * What the log says about one nested call (made through `context.seam.callTool`), for replaying its
 * parent on resume. `requested` is what the caller passed (matched against the replay), `args` what
 * the tool ran with (after schema, hooks and approval).
 */
export type NestedJournalEntry =
  | {
      readonly state: "requested";
      readonly parentToolCallId: string;
      readonly toolName: string;
      readonly args: unknown;
      readonly requested: unknown;
    }
  | {
      readonly state: "refused";
      readonly parentToolCallId: string;
      readonly toolName: string;
      readonly requested: unknown;
      readonly error: unknown;
      readonly durationMs: number;
    }
  | {
      readonly state: "started";
      readonly parentToolCallId: string;
      readonly toolName: string;
      readonly args: unknown;
      readonly requested: unknown;
    }
  | {
      readonly state: "done";
      readonly parentToolCallId: string;
      readonly toolName: string;
      readonly args: unknown;
      readonly requested: unknown;
      readonly result: unknown;
      readonly isError: boolean;
      readonly durationMs: number;
    };

interface NestedData {
  toolCallId?: unknown;
  parentToolCallId?: unknown;
  toolName?: unknown;
  args?: unknown;
  requestedArgs?: unknown;
  result?: unknown;
  isError?: unknown;
  error?: unknown;
  durationMs?: unknown;
}

/**
 * The nested calls recorded in `events` (one turn of a run), by call id: requested (waiting for or
 * given an approval decision, not run), refused, started (intent without result: in doubt) or done.
 * A later event of a call supersedes an earlier one.
 *
 * @example
 * readNestedJournal(eventsAfterTheLastAssistantMessage).get("prog.3"); // { state: "started", toolName: "charge", … }
 */
export function readNestedJournal(events: Iterable<SessionEvent>): Map<string, NestedJournalEntry> {
  const journal = new Map<string, NestedJournalEntry>();
  for (const event of events) {
    const data = (event.data ?? {}) as NestedData;
    const id = data.toolCallId;
    const parentToolCallId = data.parentToolCallId;
    if (typeof id !== "string" || typeof parentToolCallId !== "string") continue;
    const toolName = String(data.toolName);
    const durationMs = typeof data.durationMs === "number" ? data.durationMs : 0;
    switch (event.type) {
      case "tool_call": {
        const requested = "requestedArgs" in data ? data.requestedArgs : data.args;
        const entry = { parentToolCallId, toolName, args: data.args, requested };
        // Before nested calls were journaled, a program's calls were recorded at its end, results included.
        const recordedResult = "isError" in data;
        journal.set(
          id,
          recordedResult
            ? {
                state: "done",
                ...entry,
                result: data.isError === true ? data.error : data.result,
                isError: data.isError === true,
                durationMs,
              }
            : { state: "started", ...entry },
        );
        break;
      }
      case "tool_call_result": {
        const started = journal.get(id);
        const args = started !== undefined && started.state !== "refused" ? started.args : undefined;
        const requested = started?.requested;
        journal.set(id, {
          state: "done",
          parentToolCallId,
          toolName,
          args,
          requested,
          result: data.result,
          isError: data.isError === true,
          durationMs,
        });
        break;
      }
      case "approval_requested": {
        // Asked for approval and not yet run (an intent or a refusal of the call supersedes this).
        const requested = "requestedArgs" in data ? data.requestedArgs : data.args;
        journal.set(id, { state: "requested", parentToolCallId, toolName, args: data.args, requested });
        break;
      }
      case "tool_call_refused":
        journal.set(id, {
          state: "refused",
          parentToolCallId,
          toolName,
          requested: data.args,
          error: data.error,
          durationMs,
        });
        break;
      default:
        break;
    }
  }
  return journal;
}
