import type { DepsOperation } from "./context/operations.js";
import { isPlainObject } from "./context/plain-object.js";
import { SessionStateError } from "./errors/run-errors.js";
import type { RunPersistence } from "./runner/run-state.js";
import { AgentContext } from "./session/agent-context.js";
import type { SessionEvent } from "./session/events.js";
import { findNonJson } from "./session/json-value.js";
import { projectDeps } from "./session/projections.js";
import { SessionLog } from "./session/session-log.js";
import type { SessionStore } from "./store/session-store.js";

let defaultStore: Promise<SessionStore> | undefined;

/** The store a session run uses when none is given: SQLite at `.nous/sessions.db`, opened once per process. */
export function defaultSessionStore(): Promise<SessionStore> {
  defaultStore ??= import("./store/sqlite-store.js").then(({ SqliteStore }) => new SqliteStore());
  return defaultStore;
}

/**
 * Commits a run's events to the store, each batch checked against the last seq this run saw and
 * fenced with the run's lease token (refused with `LeaseLostError` once another run took over);
 * releases the lease once the run has committed its last event.
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
      await store.append(sessionId, events, { expectedLastSeq, fence: lease.token });
      expectedLastSeq = events.at(-1)?.seq ?? expectedLastSeq;
    },
  };
}

/**
 * The context a session run starts from. A new session records the JSON part of the caller's deps
 * (its state) as an initial `context_update`, so the log alone rebuilds state. A continued session
 * projects its state from the log and lays it over the deps the caller passed (live dependencies:
 * clients and functions, which are never persisted).
 */
export function sessionContext<D extends object>(
  events: readonly SessionEvent[],
  deps: D,
  options: { name?: string; now?: () => Date },
): AgentContext<D> {
  if (events.length === 0) {
    const context = AgentContext.create<D>({ deps, name: options.name, now: options.now });
    const operations: DepsOperation[] = [];
    for (const [key, value] of Object.entries(deps)) {
      if (findNonJson(value) === undefined) operations.push({ op: "set", key, value });
    }
    return operations.length > 0 ? context.withContextUpdate(deps, operations, { origin: "initial" }) : context;
  }
  const state = projectDeps(events, {});
  const merged = isPlainObject(deps) ? { ...deps, ...state } : state;
  return AgentContext.create<D>({
    deps: merged as D,
    log: SessionLog.fromEvents(events),
    name: options.name,
    now: options.now,
  });
}

/** Refuses to start a new run on a session whose last run stopped midway (it must be resumed). */
export function assertNoUnfinishedRun(events: readonly SessionEvent[], sessionId: string): void {
  for (let index = events.length - 1; index >= 0; index--) {
    const type = events[index]?.type;
    if (type === "run_completed" || type === "run_failed") return;
    if (type === "run_started" || type === "run_resumed") {
      throw new SessionStateError({
        message: `Session "${sessionId}" has an unfinished run (interrupted or awaiting approval): use agent.resume("${sessionId}")`,
      });
    }
  }
}
