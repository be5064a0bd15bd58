import type { RunResult } from "../runner/types.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps, projectMessages } from "../session/projections.js";
import type { SessionStore } from "../store/session-store.js";
import { costFromLog, usageFromLog } from "./child-usage.js";

/**
 * A child run that this parent run's call started before — the call is running again after the
 * run paused on the child's approval (or after a crash): the child is resumed or its result taken,
 * never started twice.
 */
export type EarlierChild =
  /** Waiting for approval, or interrupted: resume it. */
  | { readonly type: "unfinished"; readonly runId: string }
  /** Completed (resumed by someone else meanwhile): its recorded result is the delegation's. */
  | { readonly type: "completed"; readonly runId: string; readonly result: RunResult<unknown, object> }
  | {
      readonly type: "failed";
      readonly runId: string;
      readonly error: { readonly code: string; readonly message: string };
      readonly log: readonly SessionEvent[];
    };

/** Where the parent's delegation stands: its session and call, its run and the child session it would use. */
export interface ChildLink {
  readonly childSessionId: string;
  readonly parentRunId: string;
  readonly parentToolCallId: string;
}

/**
 * The latest run of the child session, when the same parent run and call started it
 * (`run_started` records `parentRunId` and `parentToolCallId`); undefined for a new delegation.
 *
 * @example
 * const earlier = await findEarlierChild(store, { childSessionId: "u42/r1", parentRunId, parentToolCallId: "r1" });
 * if (earlier?.type === "unfinished") await agent.resume("u42/r1", { store, parent });
 */
export async function findEarlierChild(store: SessionStore, link: ChildLink): Promise<EarlierChild | undefined> {
  const log = await store.read(link.childSessionId);
  let start = -1;
  for (let index = log.length - 1; index >= 0; index--) {
    if (log[index]?.type === "run_started") {
      start = index;
      break;
    }
  }
  const started = log[start]?.data as
    | { runId?: unknown; parentRunId?: unknown; parentToolCallId?: unknown }
    | undefined;
  if (started === undefined || typeof started.runId !== "string") return undefined;
  if (started.parentRunId !== link.parentRunId || started.parentToolCallId !== link.parentToolCallId) return undefined;
  const runId = started.runId;
  let end: SessionEvent | undefined;
  for (const event of log.slice(start + 1)) {
    if (event.type === "run_completed" || event.type === "run_failed") end = event;
    if (event.type === "run_resumed") end = undefined;
  }
  if (end === undefined) return { type: "unfinished", runId };
  if (end.type === "run_failed") {
    const error = (end.data as { error?: { code?: unknown; message?: unknown } }).error;
    return {
      type: "failed",
      runId,
      error: { code: String(error?.code ?? "unexpected_error"), message: String(error?.message ?? "") },
      log,
    };
  }
  return {
    type: "completed",
    runId,
    result: {
      runId,
      output: (end.data as { output?: unknown }).output,
      deps: projectDeps(log, {}),
      messages: projectMessages(log),
      log,
      usage: usageFromLog(log, runId),
      cost: costFromLog(log, runId),
    },
  };
}
