/**
 * What the inspector computes from a session's events: the state at an event (messages and deps of
 * the prefix up to a seq) with the deps diff against the previous event, per-request tokens and
 * latency, and usage and cost totals. Pure functions over events read through the public API.
 */
import {
  costOfResponse,
  type DepsOperation,
  isPlainObject,
  isSurfaceType,
  type Message,
  type PriceModule,
  projectDeps,
  projectMessages,
  type RecordedCost,
  type SessionEvent,
  type SessionUsage,
  type Usage,
} from "../index.js";

import { type OperationChange, operationChanges } from "./request-detail.js";

/** Which paths of the deps an event added, removed or changed (`todos[1]`, `prefs.theme.color`). */
export interface DepsDiff {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: string[];
}

/** The state of a session at one event. */
export interface StateAtSeq {
  readonly seq: number;
  readonly messages: Message[];
  readonly deps: Record<string, unknown>;
  /** The deps at the event before (`seq - 1`; empty at the first event). */
  readonly previousDeps: Record<string, unknown>;
  readonly diff: DepsDiff;
  /** At a `context_update`: each operation with the old and new value of its key. */
  readonly operations?: OperationChange[];
  /** Set when the deps could not be rebuilt from the log (a malformed update). */
  readonly error?: string;
}

/** One model request: tokens, latency and cost, from its `model_response` event. */
export interface RequestStat {
  readonly seq: number;
  readonly model: string | undefined;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly latencyMs: number;
  /** USD; undefined when the model has no known price. */
  readonly cost: number | undefined;
  /**
   * The cost as `model_response` recorded it (parts, source, price row), or as priced now for a
   * response recorded without one (an older log).
   */
  readonly costDetail: RecordedCost | undefined;
}

/** Usage and cost of a whole session, its sub-agent sessions included. */
export interface SessionTotals {
  /** The session's own usage plus each sub-agent session's, once (`sessionUsage(…).total`). */
  readonly usage: Usage;
  /** What the session's own runs used. */
  readonly ownUsage: Usage;
  /** Each direct sub-agent session and its total (grandchildren included). */
  readonly subAgents: readonly { readonly sessionId: string; readonly usage: Usage }[];
  /** USD over the priced requests, sub-agents' included (`sessionUsage(…).cost`); undefined when none has a known price. */
  readonly cost: number | undefined;
  /** True when some requests were of models without a known price (the cost then covers the rest). */
  readonly costPartial: boolean;
  readonly surfaceEvents: number;
  readonly bookkeepingEvents: number;
}

function depsOf(events: readonly SessionEvent[]): { deps: Record<string, unknown>; error?: string } {
  try {
    return { deps: projectDeps<Record<string, unknown>>(events, {}) };
  } catch (error) {
    return { deps: {}, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The messages and deps of the events up to and including `seq`, and the deps diff against the
 * state at the event before it.
 *
 * @example
 * const state = stateAt(await store.read("u42"), 8);
 * state.diff.added; // ["todos[0]"]
 */
export function stateAt(events: readonly SessionEvent[], seq: number): StateAtSeq {
  const prefix = events.filter((event) => event.seq <= seq);
  const before = prefix.filter((event) => event.seq < seq);
  const now = depsOf(prefix);
  const previous = depsOf(before);
  const error = now.error ?? previous.error;
  const event = prefix.at(-1);
  const operations =
    event?.seq === seq && event.type === "context_update" && error === undefined
      ? operationChanges(previous.deps, (event.data as { operations: readonly DepsOperation[] }).operations)
      : undefined;
  return {
    seq,
    messages: projectMessages(prefix),
    deps: now.deps,
    previousDeps: previous.deps,
    diff: diffDeps(previous.deps, now.deps),
    ...(operations === undefined ? {} : { operations }),
    ...(error === undefined ? {} : { error }),
  };
}

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  const plain = /^[A-Za-z_$][\w$]*$/.test(key);
  if (path === "") return plain ? key : `[${JSON.stringify(key)}]`;
  return plain ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The paths that differ between two deps values. Plain objects and arrays are walked (array items
 * by index); any other value is a leaf compared by its JSON.
 *
 * @example
 * diffDeps({ todos: ["a"] }, { todos: ["a", "b"], n: 1 }); // { added: ["n", "todos[1]"], removed: [], changed: [] }
 */
export function diffDeps(before: unknown, after: unknown): DepsDiff {
  const diff: DepsDiff = { added: [], removed: [], changed: [] };
  walk(before, after, "", diff);
  for (const list of [diff.added, diff.removed, diff.changed]) list.sort();
  return diff;
}

function walk(before: unknown, after: unknown, path: string, diff: DepsDiff): void {
  if (isPlainObject(before) && isPlainObject(after)) {
    const left = before as Record<string, unknown>;
    const right = after as Record<string, unknown>;
    for (const key of Object.keys(left)) {
      if (!Object.hasOwn(right, key)) diff.removed.push(childPath(path, key));
      else walk(left[key], right[key], childPath(path, key), diff);
    }
    for (const key of Object.keys(right)) if (!Object.hasOwn(left, key)) diff.added.push(childPath(path, key));
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const shared = Math.min(before.length, after.length);
    for (let index = 0; index < shared; index++) walk(before[index], after[index], childPath(path, index), diff);
    for (let index = shared; index < after.length; index++) diff.added.push(childPath(path, index));
    for (let index = shared; index < before.length; index++) diff.removed.push(childPath(path, index));
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) diff.changed.push(path === "" ? "(root)" : path);
}

interface ModelResponseData {
  readonly model?: string;
  readonly usage?: Partial<Usage>;
  readonly latencyMs?: number;
}

/**
 * Tokens, latency and cost of every model request, in order: the cost each response recorded, or
 * for an older log one priced with `prices` (see `loadPricesIfNeeded`; without it, none).
 */
export function requestStats(events: readonly SessionEvent[], prices?: PriceModule): RequestStat[] {
  const stats: RequestStat[] = [];
  for (const event of events) {
    if (event.type !== "model_response") continue;
    const data = (event.data ?? {}) as ModelResponseData;
    const costDetail = costOfResponse(event, prices);
    const inputTokens = data.usage?.inputTokens ?? 0;
    const outputTokens = data.usage?.outputTokens ?? 0;
    stats.push({
      seq: event.seq,
      model: data.model,
      inputTokens,
      outputTokens,
      totalTokens: data.usage?.totalTokens ?? inputTokens + outputTokens,
      latencyMs: typeof data.latencyMs === "number" ? data.latencyMs : 0,
      cost: costDetail?.usd,
      costDetail,
    });
  }
  return stats;
}

/**
 * A session's totals from its events and its `sessionUsage` (the one computation the CLI shares):
 * usage and cost with every sub-agent session counted once, and the surface/bookkeeping split of
 * its own events.
 *
 * @example
 * const events = await store.read("team");
 * sessionTotals(events, await sessionUsage(store, "team", events)).usage.totalTokens;
 */
export function sessionTotals(events: readonly SessionEvent[], usage: SessionUsage): SessionTotals {
  // Nothing priced (every response of an unpriced model) shows no cost rather than $0.
  const cost = usage.cost.partial && usage.cost.usd === 0 ? undefined : usage.cost.usd;
  const surfaceEvents = events.filter((event) => isSurfaceType(event.type)).length;
  return {
    usage: usage.total,
    ownUsage: usage.own,
    subAgents: usage.children.map((child) => ({ sessionId: child.sessionId, usage: child.total })),
    cost,
    costPartial: usage.cost.partial && cost !== undefined,
    surfaceEvents,
    bookkeepingEvents: events.length - surfaceEvents,
  };
}
