import { UserError } from "../errors/nous-error.js";
import type { ApprovalPathStep } from "../errors/run-errors.js";
import { ApprovalArgumentsError } from "../errors/user-errors.js";
import { sha256Hex } from "../platform/sha256.js";
import { redact } from "../redaction/redact.js";
import { readApprovals } from "../session/approval-state.js";
import { currentEventCheck } from "../session/event-check.js";
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
  /** Set for a nested call (made by a code-mode program or another dispatching tool): the call that made it. */
  readonly parentToolCallId?: string;
  /**
   * Set by `listPendingApprovals` when the request is in a sub-agent's session: the delegating calls
   * from the root session down to this request, e.g.
   * `[{ sessionId: "u42", toolCallId: "r1" }, { sessionId: "u42/r1", toolCallId: "t1" }]`. Decide it
   * in its own session (`sessionId`), then resume `path[0].sessionId` with the root agent: the root
   * resumes the child, then goes on.
   */
  readonly path?: readonly ApprovalPathStep[];
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
  return sha256Hex(canonicalJson(args));
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

/** The approvals a session's log holds that are requested and not yet decided (without `path`: see `listPendingApprovals`). */
export function pendingApprovalsOf(sessionId: string, events: readonly SessionEvent[]): PendingApproval[] {
  return [...readApprovals(events).pending.values()].map((request) => ({
    sessionId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    args: request.args,
    argsHash: hashArgs(request.args),
    requestedAt: request.at,
    ...(request.parentToolCallId === undefined ? {} : { parentToolCallId: request.parentToolCallId }),
  }));
}

/** Options of `listPendingApprovals`. */
export interface ListPendingApprovalsOptions {
  /** Only this session's pending approvals (with their paths), whatever its status. */
  readonly sessionId?: string;
}

/**
 * Every pending approval across the store's sessions, oldest session first within each page — or,
 * with `sessionId`, that session's. A request inside a sub-agent's session carries its `path` from
 * the root session (a root paused on a child's approval is itself listed as awaiting approval by
 * `store.list`, but its request is the child's, listed once, here).
 *
 * @example
 * for (const approval of await listPendingApprovals(store)) console.log(approval.toolName, approval.args);
 */
export async function listPendingApprovals(
  store: SessionStore,
  options: ListPendingApprovalsOptions = {},
): Promise<PendingApproval[]> {
  const logs = new Map<string, Promise<readonly SessionEvent[]>>();
  const read = (sessionId: string) => {
    let log = logs.get(sessionId);
    if (log === undefined) {
      log = store.read(sessionId);
      logs.set(sessionId, log);
    }
    return log;
  };
  const found: PendingApproval[] = [];
  const collect = async (sessionId: string) => {
    const pending = pendingApprovalsOf(sessionId, await read(sessionId));
    if (pending.length === 0) return;
    const parents = await parentChain(sessionId, read);
    for (const approval of pending) {
      found.push(
        parents.length === 0
          ? approval
          : { ...approval, path: [...parents, { sessionId, toolCallId: approval.toolCallId }] },
      );
    }
  };
  if (options.sessionId !== undefined) {
    await collect(options.sessionId);
    return found;
  }
  let cursor: string | undefined;
  do {
    const page = await store.list({ status: "awaiting_approval", limit: 200, cursor });
    for (const summary of page.sessions) await collect(summary.sessionId);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return found;
}

/** How deep `parentChain` follows parents (sub-agents nest `maxDepth`, default 3, deep). */
const MAX_PATH = 64;

/** The delegating calls above a sub-agent's session, root first; empty for a root session. */
async function parentChain(
  sessionId: string,
  read: (sessionId: string) => Promise<readonly SessionEvent[]>,
): Promise<ApprovalPathStep[]> {
  const chain: ApprovalPathStep[] = [];
  const seen = new Set([sessionId]);
  let link = parentOf(sessionId, await read(sessionId));
  while (link !== undefined && !seen.has(link.sessionId) && chain.length < MAX_PATH) {
    chain.unshift(link);
    seen.add(link.sessionId);
    link = parentOf(link.sessionId, await read(link.sessionId));
  }
  return chain;
}

/**
 * The parent session and delegating call a sub-agent's latest run names in its `run_started`, if
 * any — and only when the session is that call's child (`<parent>/<call>…`), not a fork of one.
 */
function parentOf(sessionId: string, events: readonly SessionEvent[]): ApprovalPathStep | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type !== "run_started") continue;
    const data = event.data as { parentSessionId?: unknown; parentToolCallId?: unknown };
    if (typeof data.parentSessionId !== "string" || typeof data.parentToolCallId !== "string") return undefined;
    const childOf = sessionId.startsWith(`${data.parentSessionId}/${data.parentToolCallId}`);
    return childOf ? { sessionId: data.parentSessionId, toolCallId: data.parentToolCallId } : undefined;
  }
  return undefined;
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
  // Written straight to the store, so redacted here as AgentContext redacts what it appends.
  const decided: SessionEvent = { seq, at: new Date().toISOString(), type: "approval_decided", data: redact(data) };
  currentEventCheck()?.(decided);
  await store.append(approval.sessionId, [decided], { expectedLastSeq: last?.seq ?? 0 });
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
