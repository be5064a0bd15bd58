import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import { childSessionsOf } from "../sub-agents/session-usage.js";
import type { PlannedSpan } from "./planned-span.js";
import { type PlannedRun, type PlanOptions, planSession } from "./span-builder.js";

/** A session's events and its sub-agent sessions', recursively. */
export interface SessionTree {
  readonly sessionId: string | undefined;
  readonly events: readonly SessionEvent[];
  readonly children: readonly SessionTree[];
}

/**
 * A session and its sub-agent sessions (`childSessionsOf`), read from the store. `events` stands in
 * for the root session's stored events when given (a live run's log, which the store may lack the
 * end of after a store failure).
 */
export async function readSessionTree(
  store: SessionStore | undefined,
  sessionId: string | undefined,
  events?: readonly SessionEvent[],
): Promise<SessionTree> {
  if (store === undefined || sessionId === undefined) return { sessionId, events: events ?? [], children: [] };
  const own = events ?? (await store.read(sessionId));
  const childIds = await childSessionsOf(store, sessionId);
  const children = await Promise.all(childIds.map((childId) => readSessionTree(store, childId)));
  return { sessionId, events: own, children };
}

/**
 * The runs of the tree's root session as span trees, each sub-agent run placed in the span of the
 * tool call that started it: the latest span of that call (by its `run_started`'s
 * `parentToolCallId`) that began no later than the child run. A child run with no such span
 * (its parent's call is not in the log) is left out.
 */
export function planSessionTree(tree: SessionTree, options: PlanOptions = {}): readonly PlannedRun[] {
  const plan = planSession(tree.sessionId, tree.events, options);
  for (const child of tree.children) {
    const parentToolCallId = parentCallOf(child.events);
    const candidates = parentToolCallId === undefined ? [] : (plan.toolSpans.get(parentToolCallId) ?? []);
    for (const run of planSessionTree(child, options)) {
      const start = Date.parse(run.span.start);
      let host: PlannedSpan | undefined;
      for (const span of candidates) if (Date.parse(span.start) <= start) host = span;
      host?.children.push(run.span);
    }
  }
  return plan.runs;
}

/** The call that started a sub-agent session: its first `run_started`'s `parentToolCallId`. */
function parentCallOf(events: readonly SessionEvent[]): string | undefined {
  const started = events.find((event) => event.type === "run_started");
  const parent = (started?.data as { parentToolCallId?: unknown } | undefined)?.parentToolCallId;
  return typeof parent === "string" ? parent : undefined;
}
