import { projectSessionCost } from "../cost/logged-cost.js";
import { addCost, type RunCost } from "../cost/recorded-cost.js";
import { childReportCost } from "../cost/run-cost.js";
import type { SessionEvent } from "../session/events.js";
import { projectUsage } from "../session/projections.js";
import { addUsage, emptyUsage, type ReportedTokens, responseUsage, type Usage } from "../session/usage.js";
import type { SessionStore } from "../store/session-store.js";

/**
 * The `byModel` key of usage known only from a parent's report (its child's session is not in the store).
 *
 * @example
 * (await sessionUsage(store, "team")).byModel[UNKNOWN_MODEL]; // undefined while every child's session is there
 */
export const UNKNOWN_MODEL = "(unknown model)";

/**
 * What a session used, its sub-agents included (see `sessionUsage`).
 *
 * @example
 * const usage = await sessionUsage(store, "team");
 * usage.total.totalTokens; // the session's own tokens plus every sub-agent's, each once
 */
export interface SessionUsage {
  readonly sessionId: string;
  /** What the session's own runs used: its model responses and tool calls (`projectUsage` of its log). */
  readonly own: Usage;
  /** `own` plus the `total` of each sub-agent session, each counted once: what its runs reported. */
  readonly total: Usage;
  /**
   * The requests and tokens of `total` by model, as `model_response` recorded it (`"provider:model"`);
   * usage known only from a parent's report is under `UNKNOWN_MODEL`. `toolCalls` is 0 here: a
   * call belongs to no model.
   */
  readonly byModel: Readonly<Record<string, Usage>>;
  /** Each sub-agent session with its own totals, by session id. */
  readonly children: readonly SessionUsage[];
  /** What `own` cost (see `sessionCost`). */
  readonly ownCost: RunCost;
  /** What `total` cost, each sub-agent session once (see `sessionCost`). */
  readonly cost: RunCost;
}

interface ChildReport {
  readonly childSessionId: string | null;
  readonly usage: Partial<Usage>;
  readonly cost: RunCost | undefined;
}

/** The children a log reports as finished (`subagent_completed` / `subagent_failed`), with the usage reported. */
function reportedChildren(events: readonly SessionEvent[]): ChildReport[] {
  const reports: ChildReport[] = [];
  for (const event of events) {
    if (event.type !== "subagent_completed" && event.type !== "subagent_failed") continue;
    const data = (event.data ?? {}) as { childSessionId?: unknown; usage?: Partial<Usage>; cost?: RunCost };
    reports.push({
      childSessionId: typeof data.childSessionId === "string" ? data.childSessionId : null,
      usage: data.usage ?? {},
      cost: data.cost,
    });
  }
  return reports;
}

/**
 * The sessions the store holds as sub-agents of `sessionId`: ids `${sessionId}/…` whose first
 * `run_started` names `sessionId` as its parent session. Found whether or not the parent's log
 * mentions them (a child cut short by a timeout or a cancellation leaves no report there).
 *
 * @example
 * await childSessionsOf(store, "team"); // ["team/c1", "team/r1"] — not "team/r1/n1", a grandchild
 */
export async function childSessionsOf(store: SessionStore, sessionId: string): Promise<string[]> {
  const prefix = `${sessionId}/`;
  const candidates: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ search: prefix, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const summary of page.sessions) if (summary.sessionId.startsWith(prefix)) candidates.push(summary.sessionId);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const children: string[] = [];
  for (const candidate of candidates.sort()) {
    const [first] = await store.read(candidate, { limit: 1 });
    const parent =
      first?.type === "run_started" ? (first.data as { parentSessionId?: unknown }).parentSessionId : undefined;
    if (parent === sessionId) children.push(candidate);
  }
  return children;
}

function addByModel(into: Map<string, Usage>, model: string, usage: Partial<Usage>): void {
  into.set(model, addUsage(into.get(model) ?? emptyUsage, { ...usage, toolCalls: 0 }));
}

/**
 * What a session used, its sub-agents included, each exactly once — the one computation behind
 * every usage and cost total the CLI and the inspector show.
 *
 * - `own`: the session's own model responses and tool calls (`projectUsage`).
 * - Each sub-agent session — found in the store under `${sessionId}/…` with this session as its
 *   parent, or named by a `subagent_completed`/`subagent_failed` event of the log (a fork's
 *   children) — adds its `total`, computed the same way, so a grandchild counts once too. A
 *   child that failed or was cancelled counts what its log recorded.
 * - A child the log reports but whose session the store does not hold (deleted, or a run without
 *   a store) adds the usage the report carries, under `UNKNOWN_MODEL`.
 *
 * For a session written by one run, `total` equals that run's `result.usage`.
 *
 * @example
 * const { total, children } = await sessionUsage(store, "team");
 * console.log(total.totalTokens, children.map((child) => child.sessionId));
 */
export async function sessionUsage(
  store: SessionStore,
  sessionId: string,
  events?: readonly SessionEvent[],
): Promise<SessionUsage> {
  return usageOf(store, sessionId, events ?? (await store.read(sessionId)), new Set([sessionId]));
}

async function usageOf(
  store: SessionStore,
  sessionId: string,
  events: readonly SessionEvent[],
  seen: Set<string>,
): Promise<SessionUsage> {
  const own = projectUsage(events);
  const ownCost = await projectSessionCost(events);
  let cost = ownCost;
  const byModel = new Map<string, Usage>();
  for (const event of events) {
    if (event.type !== "model_response") continue;
    const data = (event.data ?? {}) as { model?: unknown; usage?: ReportedTokens };
    addByModel(byModel, typeof data.model === "string" ? data.model : UNKNOWN_MODEL, responseUsage(data.usage ?? {}));
  }
  let total = own;
  const ids = await childSessionsOf(store, sessionId);
  for (const report of reportedChildren(events)) {
    const id = report.childSessionId;
    if (id !== null && (ids.includes(id) || (await store.exists(id)))) {
      if (!ids.includes(id)) ids.push(id);
      continue;
    }
    total = addUsage(total, report.usage);
    addByModel(byModel, UNKNOWN_MODEL, report.usage);
    cost = addCost(cost, childReportCost(report));
  }
  const children: SessionUsage[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const child = await usageOf(store, id, await store.read(id), seen);
    children.push(child);
    total = addUsage(total, child.total);
    cost = addCost(cost, child.cost);
    for (const [model, usage] of Object.entries(child.byModel)) addByModel(byModel, model, usage);
  }
  return { sessionId, own, total, byModel: Object.fromEntries(byModel), children, ownCost, cost };
}
