import { createHash } from "node:crypto";
import { UserError } from "../errors/nous-error.js";
import { ApprovalArgumentsError } from "../errors/user-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import type { ValidationResult } from "../tools/schema.js";

/** A tool call waiting for a human or policy decision, bound to its session, call, tool and arguments. */
export interface PendingApproval {
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** SHA-256 of the canonical JSON of `args`: a decision must name it, so it cannot approve other arguments. */
  readonly argsHash: string;
  readonly requestedAt: string;
}

/** What a decision says. `edit` approves with other arguments. */
export type ApprovalVerdict =
  | { readonly type: "approve" }
  | { readonly type: "reject"; readonly reason?: string }
  | { readonly type: "edit"; readonly args: unknown };

/** What `decideApproval` needs of a tool to check edited arguments: its name and input schema. */
export interface ApprovalTool {
  readonly name: string;
  readonly schema: { validate(value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>> };
}

/** Where `decideApproval` finds the tool whose schema edited arguments must pass. */
export interface DecideApprovalOptions {
  /** The tool that asked for approval. */
  readonly tool?: ApprovalTool;
  /** The agent that owns the tool (an `Agent`): its tool of the approval's name is used. */
  readonly agent?: { toolNamed(name: string): ApprovalTool | undefined };
}

/** A decision that does not match a pending approval (forged, replayed, or for other arguments). */
export class ApprovalMismatchError extends UserError {
  readonly code = "approval_mismatch";
}

/** SHA-256 of the canonical JSON (keys sorted) of a value. */
export function hashArgs(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The approvals a session's log holds that are requested and not yet decided. */
export function pendingApprovalsOf(sessionId: string, events: readonly SessionEvent[]): PendingApproval[] {
  const pending = new Map<string, PendingApproval>();
  for (const event of events) {
    const data = event.data as { toolCallId?: string; toolName?: string; args?: unknown };
    if (event.type === "approval_requested" && data.toolCallId && data.toolName) {
      pending.set(data.toolCallId, {
        sessionId,
        toolCallId: data.toolCallId,
        toolName: data.toolName,
        args: data.args,
        argsHash: hashArgs(data.args),
        requestedAt: event.at,
      });
    }
    if (event.type === "approval_decided" && data.toolCallId) pending.delete(data.toolCallId);
  }
  return [...pending.values()];
}

/**
 * Every pending approval across the store's sessions, oldest session first within each page.
 *
 * @example
 * for (const approval of await listPendingApprovals(store)) console.log(approval.toolName, approval.args);
 */
export async function listPendingApprovals(store: SessionStore): Promise<PendingApproval[]> {
  const found: PendingApproval[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ status: "awaiting_approval", limit: 200, cursor });
    for (const summary of page.sessions) {
      found.push(...pendingApprovalsOf(summary.sessionId, await store.read(summary.sessionId)));
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return found;
}

/**
 * Records a decision for a pending approval. It must name the session, call id, tool name and the
 * hash of the arguments that were asked about: a decision for a call that was never requested
 * (forged), one already decided (replayed) or one for other arguments is refused with
 * `ApprovalMismatchError`, and nothing is written. Given the tool or its agent, edited arguments
 * are validated against the tool's input schema first: an invalid edit is refused with
 * `ApprovalArgumentsError` (the schema's issues), and nothing is written. Then
 * `agent.resume(sessionId)` continues.
 *
 * @example
 * const [approval] = await listPendingApprovals(store);
 * await decideApproval(store, approval, { type: "edit", args: { amount: 100 } }, { agent });
 * await agent.resume(approval.sessionId, { store });
 */
export async function decideApproval(
  store: SessionStore,
  approval: Pick<PendingApproval, "sessionId" | "toolCallId" | "toolName" | "argsHash">,
  verdict: ApprovalVerdict,
  options: DecideApprovalOptions = {},
): Promise<void> {
  const events = await store.read(approval.sessionId);
  const pending = pendingApprovalsOf(approval.sessionId, events).find(
    (item) => item.toolCallId === approval.toolCallId,
  );
  const requested = events.some(
    (event) =>
      event.type === "approval_requested" && (event.data as { toolCallId?: string }).toolCallId === approval.toolCallId,
  );
  if (pending === undefined) {
    throw new ApprovalMismatchError({
      message: requested
        ? `Tool call ${approval.toolCallId} in session "${approval.sessionId}" is already decided`
        : `No approval was requested for tool call ${approval.toolCallId} in session "${approval.sessionId}"`,
    });
  }
  if (pending.toolName !== approval.toolName || pending.argsHash !== approval.argsHash) {
    throw new ApprovalMismatchError({
      message: `The decision does not match the request for ${approval.toolCallId}: tool or arguments differ`,
    });
  }
  if (verdict.type === "edit") await checkEditedArgs(approval.toolName, verdict.args, options);
  const data =
    verdict.type === "approve"
      ? { toolCallId: approval.toolCallId, approved: true }
      : verdict.type === "reject"
        ? { toolCallId: approval.toolCallId, approved: false, ...(verdict.reason ? { reason: verdict.reason } : {}) }
        : { toolCallId: approval.toolCallId, approved: true, args: verdict.args };
  const last = events.at(-1);
  const seq = (last?.seq ?? 0) + 1;
  await store.append(approval.sessionId, [{ seq, at: new Date().toISOString(), type: "approval_decided", data }], {
    expectedLastSeq: last?.seq ?? 0,
  });
}

async function checkEditedArgs(toolName: string, args: unknown, options: DecideApprovalOptions): Promise<void> {
  if (options.tool !== undefined && options.tool.name !== toolName) {
    throw new ApprovalMismatchError({
      message: `The approval is for tool "${toolName}", not "${options.tool.name}"`,
    });
  }
  const tool = options.tool ?? options.agent?.toolNamed(toolName);
  if (tool === undefined) return;
  const result = await tool.schema.validate(args);
  if (!result.ok) throw new ApprovalArgumentsError({ toolName, issues: result.issues });
}
