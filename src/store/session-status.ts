import type { SessionStatus } from "./session-store.js";

/** The part of a session summary derived from its lifecycle events, as stores keep it between appends. */
export interface LifecycleState {
  /**
   * The status of the latest run, before pending approvals are considered: `"awaiting_approval"`
   * when it paused on a sub-agent's approval (`subagent_paused`, or `run_paused` naming a request in
   * another session), until it resumes; a pause on its own requests is told by `pendingApprovals`.
   */
  readonly runStatus: "running" | "completed" | "failed" | "awaiting_approval" | "idle";
  readonly agent: string | null;
  readonly model: string | null;
  /** `toolCallId`s of approvals requested and not yet decided, in request order. */
  readonly pendingApprovals: readonly string[];
}

/** The event types that change a session's status, agent or model. */
export const LIFECYCLE_EVENT_TYPES = Object.freeze([
  "run_started",
  "run_resumed",
  "run_completed",
  "run_failed",
  "approval_requested",
  "approval_decided",
  "subagent_paused",
  "run_paused",
] as const);
type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number];

const lifecycleTypes = new Set<string>(LIFECYCLE_EVENT_TYPES);

/** The state of a session with no lifecycle events. */
export const INITIAL_LIFECYCLE: LifecycleState = Object.freeze({
  runStatus: "idle",
  agent: null,
  model: null,
  pendingApprovals: Object.freeze([]) as readonly string[],
});

/**
 * Folds one event into the lifecycle state. Events of other types leave it unchanged.
 *
 * @example
 * let state = INITIAL_LIFECYCLE;
 * state = foldLifecycle(state, { type: "run_started", data: { runId: "r1", agent: "todo" } });
 * statusOf(state); // "running"
 */
export function foldLifecycle(state: LifecycleState, event: { readonly type: string; readonly data: unknown }) {
  if (!lifecycleTypes.has(event.type)) return state;
  const type = event.type as LifecycleEventType;
  const data = isRecord(event.data) ? event.data : {};
  switch (type) {
    case "run_started":
      return {
        ...state,
        runStatus: "running" as const,
        agent: typeof data.agent === "string" ? data.agent : state.agent,
        model: typeof data.model === "string" ? data.model : state.model,
      };
    case "run_resumed":
      return { ...state, runStatus: "running" as const };
    case "run_completed":
      return { ...state, runStatus: "completed" as const };
    case "run_failed":
      return { ...state, runStatus: "failed" as const };
    case "subagent_paused":
      return { ...state, runStatus: "awaiting_approval" as const };
    case "run_paused": {
      // This session's own requests are counted by `approval_requested`/`approval_decided` (once
      // decided, the run is resumable). A sub-agent's request lives in its session: waiting until resumed.
      const pending = Array.isArray(data.pending) ? (data.pending as unknown[]) : [];
      const below = pending.some((call) => isRecord(call) && typeof call.sessionId === "string");
      return below ? { ...state, runStatus: "awaiting_approval" as const } : state;
    }
    case "approval_requested": {
      const id = data.toolCallId;
      if (typeof id !== "string" || state.pendingApprovals.includes(id)) return state;
      return { ...state, pendingApprovals: [...state.pendingApprovals, id] };
    }
    case "approval_decided": {
      const id = data.toolCallId;
      if (typeof id !== "string" || !state.pendingApprovals.includes(id)) return state;
      return { ...state, pendingApprovals: state.pendingApprovals.filter((pending) => pending !== id) };
    }
    default: {
      const unexpected: never = type;
      return unexpected;
    }
  }
}

/**
 * Whether an event of this type can change the lifecycle state (stores skip decoding the others).
 *
 * @example
 * isLifecycleType("run_started"); // true
 */
export function isLifecycleType(type: string): boolean {
  return lifecycleTypes.has(type);
}

/**
 * The status a summary reports: awaiting approval while any approval is pending, else the run's.
 *
 * @example
 * statusOf(INITIAL_LIFECYCLE); // "idle"
 */
export function statusOf(state: LifecycleState): SessionStatus {
  return state.pendingApprovals.length > 0 ? "awaiting_approval" : state.runStatus;
}

/**
 * The text `list({ search })` matches: session id, agent and model, lower-cased. Stored as a
 * column so every backend matches the same way.
 *
 * @example
 * searchTextOf("S1", { ...INITIAL_LIFECYCLE, agent: "Support" }); // "s1\nsupport\n"
 */
export function searchTextOf(sessionId: string, state: LifecycleState): string {
  return [sessionId, state.agent ?? "", state.model ?? ""].join("\n").toLowerCase();
}

/**
 * Rebuilds a lifecycle state from its stored parts.
 *
 * @example
 * lifecycleFromColumns({ runStatus: "running", agent: null, model: null, pendingApprovals: "[]" });
 */
export function lifecycleFromColumns(columns: {
  runStatus: string;
  agent: string | null;
  model: string | null;
  pendingApprovals: string;
}): LifecycleState {
  const runStatus = columns.runStatus;
  return {
    runStatus:
      runStatus === "running" ||
      runStatus === "completed" ||
      runStatus === "failed" ||
      runStatus === "awaiting_approval"
        ? runStatus
        : "idle",
    agent: columns.agent,
    model: columns.model,
    pendingApprovals: JSON.parse(columns.pendingApprovals) as string[],
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
