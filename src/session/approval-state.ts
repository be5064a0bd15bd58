import type { SessionEvent } from "./events.js";

/** An approval a log requested (`approval_requested`): a top-level call, or a nested one naming its parent. */
export interface ApprovalRequest {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The arguments the decision is about (after schema and hooks). */
  readonly args: unknown;
  /** Set for a nested call (code mode, a dispatching tool): the call that made it. */
  readonly parentToolCallId?: string;
  /** A nested call's arguments as its caller passed them, when they differ from `args`. */
  readonly requestedArgs?: unknown;
  /** When it was requested (the event's time). */
  readonly at: string;
}

/** A recorded decision (`approval_decided`): `args` are edited arguments, `reason` a rejection's. */
export interface RecordedApprovalDecision {
  readonly approved: boolean;
  readonly args?: unknown;
  readonly reason?: string;
}

/** What a log says about approvals: every decision, and the requests still waiting for one. */
export interface ApprovalState {
  /** Decisions by tool-call id. */
  readonly decided: ReadonlyMap<string, RecordedApprovalDecision>;
  /** Requests without a later decision, by tool-call id, in request order. */
  readonly pending: ReadonlyMap<string, ApprovalRequest>;
}

interface ApprovalData {
  toolCallId?: unknown;
  toolName?: unknown;
  args?: unknown;
  parentToolCallId?: unknown;
  requestedArgs?: unknown;
  approved?: unknown;
  reason?: unknown;
}

/**
 * Folds the approval events of a log (or of one turn of it): the one place that says which
 * requests are pending and what was decided. A request is pending until an `approval_decided`
 * for its call id follows; nested requests count like top-level ones.
 *
 * @example
 * const { pending, decided } = readApprovals(await store.read("pay"));
 * pending.get("t1")?.toolName; // "transfer"
 */
export function readApprovals(events: Iterable<SessionEvent>): ApprovalState {
  const decided = new Map<string, RecordedApprovalDecision>();
  const pending = new Map<string, ApprovalRequest>();
  for (const event of events) {
    if (event.type !== "approval_requested" && event.type !== "approval_decided") continue;
    const data = (event.data ?? {}) as ApprovalData;
    const id = data.toolCallId;
    if (typeof id !== "string" || id === "") continue;
    if (event.type === "approval_requested") {
      if (typeof data.toolName !== "string" || data.toolName === "") continue;
      pending.delete(id);
      pending.set(id, {
        toolCallId: id,
        toolName: data.toolName,
        args: data.args,
        ...(typeof data.parentToolCallId === "string" ? { parentToolCallId: data.parentToolCallId } : {}),
        ...("requestedArgs" in data ? { requestedArgs: data.requestedArgs } : {}),
        at: event.at,
      });
    } else {
      pending.delete(id);
      decided.set(id, {
        approved: data.approved === true,
        ...(data.args === undefined ? {} : { args: data.args }),
        ...(typeof data.reason === "string" ? { reason: data.reason } : {}),
      });
    }
  }
  return { decided, pending };
}
