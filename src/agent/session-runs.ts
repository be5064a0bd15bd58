import type { DepsOperation } from "../context/operations.js";
import { isPlainObject } from "../context/plain-object.js";
import { SessionStateError } from "../errors/run-errors.js";
import { restoreSecretPaths, type SecretPaths } from "../redaction/secret-paths.js";
import { analyzeResumePoint, type ResumePoint } from "../runner/resume-analysis.js";
import type { RunPersistence } from "../runner/run-state.js";
import { AgentContext } from "../session/agent-context.js";
import type { SessionEvent } from "../session/events.js";
import { findNonJson } from "../session/json-value.js";
import { lastRun } from "../session/last-run.js";
import { projectDeps } from "../session/projections.js";
import { SessionLog } from "../session/session-log.js";
import { externalizeBlobs } from "../store/blob-refs.js";
import type { SessionStore } from "../store/session-store.js";
import { openDefaultStore } from "./default-store.js";

let defaultStore: Promise<SessionStore> | undefined;

/** The store a session run uses when none is given: SQLite at `.nous/sessions.db`, opened once per process. */
export function defaultSessionStore(): Promise<SessionStore> {
  defaultStore ??= openDefaultStore();
  return defaultStore;
}

/**
 * Commits a run's events to the store, each batch checked against the last seq this run saw and
 * fenced with the run's lease token (refused with `LeaseLostError` once another run took over);
 * releases the lease once the run has committed its last event. Every event of every session run
 * reaches the store here: binary parts (images, files, audio) are written to the store's blobs
 * first and recorded by reference (see `externalizeBlobs`).
 */
export function storePersistence(
  store: SessionStore,
  sessionId: string,
  lastSeq: number,
  lease: { readonly token: number; release(): Promise<void> },
): RunPersistence {
  let expectedLastSeq = lastSeq;
  return {
    end: () => lease.release(),
    async commit(events) {
      await store.append(sessionId, await externalizeBlobs(store, events), { expectedLastSeq, fence: lease.token });
      expectedLastSeq = events.at(-1)?.seq ?? expectedLastSeq;
    },
  };
}

/**
 * The context a session run starts from. State deps (JSON values) come from the log alone: a
 * continued or resumed session projects them from its events, so a key the log deleted stays
 * deleted whatever the caller passes. The caller's deps supply live dependencies (clients,
 * functions: values that are not JSON, never persisted) and state keys the log never had; those
 * new keys are recorded first as an initial `context_update`, so `projectDeps(log)` is always the
 * run's state. A new session records all of the caller's JSON deps that way. Secret deps paths
 * (the agent option `secret`) are the exception: the log holds their placeholders, so they always
 * come from the caller's deps.
 */
export function sessionContext<D extends object>(
  events: readonly SessionEvent[],
  deps: D,
  options: { name?: string; now?: () => Date; secretPaths?: SecretPaths },
): AgentContext<D> {
  const secretPaths = options.secretPaths ?? [];
  if (events.length === 0) {
    const context = AgentContext.create<D>({ deps, name: options.name, now: options.now, secretPaths });
    const operations: DepsOperation[] = [];
    for (const [key, value] of Object.entries(deps)) {
      if (findNonJson(value) === undefined) operations.push({ op: "set", key, value });
    }
    return operations.length > 0 ? context.withContextUpdate(deps, operations, { origin: "initial" }) : context;
  }
  const state = projectDeps(events, {});
  const known = stateKeysOf(events);
  const merged: Record<string, unknown> = { ...state };
  const operations: DepsOperation[] = [];
  if (isPlainObject(deps)) {
    for (const [key, value] of Object.entries(deps)) {
      if (findNonJson(value) !== undefined)
        merged[key] = value; // live: supplied on every run
      else if (!known.has(key)) {
        merged[key] = value;
        operations.push({ op: "set", key, value });
      }
    }
  }
  // The log holds placeholders for secret deps: the caller's values stand in for them.
  if (secretPaths.length > 0) restoreSecretPaths(merged, deps, secretPaths);
  const context = AgentContext.create<D>({
    deps: merged as D,
    log: SessionLog.fromEvents(events),
    name: options.name,
    now: options.now,
    secretPaths,
  });
  return operations.length > 0 ? context.withContextUpdate(merged as D, operations, { origin: "initial" }) : context;
}

/** Every deps key any recorded update touched (set, merged, appended to or deleted). */
function stateKeysOf(events: readonly SessionEvent[]): Set<string> {
  const keys = new Set<string>();
  for (const event of events) {
    if (event.type !== "context_update") continue;
    for (const operation of (event.data as { operations: readonly DepsOperation[] }).operations) {
      keys.add(operation.key);
    }
  }
  return keys;
}

/**
 * Refuses to start a new run on a session whose last run stopped midway (it must be resumed).
 * Returns the calls the last run left in doubt (intent committed, no result): see `abandonInDoubt`.
 */
export function assertNoUnfinishedRun(events: readonly SessionEvent[], sessionId: string): ReadonlySet<string> {
  const span = lastRun(events);
  if (span === undefined || span.end === "completed") return new Set();
  // A run whose prompt the log does not hold (a fork cut it right after `run_started`) did nothing: a new run replaces it.
  const prompted = events.slice(span.start + 1).some((event) => event.type === "user_message");
  if (span.end === undefined && prompted) {
    throw new SessionStateError({
      message: `Session "${sessionId}" has an unfinished run (interrupted or awaiting approval): use agent.resume("${sessionId}")`,
    });
  }
  return analyzeResumePoint(events)?.resume.inDoubt ?? new Set();
}

/**
 * The last run of a session, for `agent.resume`: refused with `SessionStateError` when there is none,
 * when it finished, or when the log holds nothing of it but its start (a fork cut it before its
 * prompt: start a new run instead).
 */
export function resumableRun(events: readonly SessionEvent[], sessionId: string): ResumePoint {
  const point = analyzeResumePoint(events);
  if (point === undefined || point.finished) {
    throw new SessionStateError({ message: `Session "${sessionId}" has no unfinished run to resume` });
  }
  const start = events.findLastIndex((event) => event.type === "run_started");
  if (!events.slice(start + 1).some((event) => event.type === "user_message")) {
    throw new SessionStateError({
      message: `Session "${sessionId}" has no run to resume: its last run recorded no prompt (the log ends right after it started); start a new run`,
    });
  }
  return point;
}

/**
 * Settles the calls a failed run left in doubt before a new run starts, or refuses the run. A call
 * of an idempotent tool (running it again is harmless, so abandoning it is too) is recorded as
 * abandoned — a `tool_call_abandoned` event, then an error result the model can read — so the
 * history stays valid. Any other may have had its effect: the new run is refused until
 * `agent.resume(sessionId, { resolveInDoubt })` settles it.
 */
export function abandonInDoubt<D extends object>(
  context: AgentContext<D>,
  inDoubt: ReadonlySet<string>,
  sessionId: string,
  idempotent: (toolName: string) => boolean,
): AgentContext<D> {
  if (inDoubt.size === 0) return context;
  const calls = new Map<string, string>();
  for (const event of context.log.events) {
    const data = event.data as { toolCallId?: string; toolName?: string; parentToolCallId?: string };
    if (
      event.type === "tool_call" &&
      data.parentToolCallId === undefined &&
      data.toolCallId &&
      inDoubt.has(data.toolCallId)
    ) {
      calls.set(data.toolCallId, data.toolName ?? "");
    }
  }
  const unsafe = [...calls].filter(([, toolName]) => !idempotent(toolName));
  if (unsafe.length > 0) {
    const names = unsafe.map(([id, toolName]) => `"${id}" (${toolName})`).join(", ");
    throw new SessionStateError({
      message: `Session "${sessionId}" has a tool call in doubt: ${names} started and has no recorded result, so it may have had its effect; settle it with agent.resume("${sessionId}", { resolveInDoubt }) before a new run`,
    });
  }
  let settled = context;
  for (const [toolCallId, toolName] of calls) {
    const reason = "interrupted before it finished; abandoned when a new run started";
    settled = settled.logEvent("tool_call_abandoned", { toolCallId, toolName, reason });
    settled = settled.addMessage({
      role: "tool",
      toolCallId,
      toolName,
      result: `Tool call ${reason}.`,
      isError: true,
    });
  }
  return settled;
}
