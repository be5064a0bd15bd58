/**
 * A recorded session and its sub-agent sessions as one tree keyed by path (the child's session id
 * relative to the root: "." for the root, "r1", "r1/n2" below it), and the comparison of a recorded
 * tree with its replay: event by event, session by session, without what legitimately differs.
 */
import { childSessionsOf, type SessionEvent, type SessionStore } from "../index.js";

/** One session of a tree: its path below the root and its events. */
export interface TreeSession {
  readonly path: string;
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
}

/** What the comparison looks at: an event's type and data, normalized. */
export interface ComparedEvent {
  readonly type: string;
  readonly data: unknown;
}

/** The first difference in one session of the tree: both sides in full (null when one side has no event). */
export interface TreeDifference {
  readonly path: string;
  readonly seq: number;
  readonly recorded: ComparedEvent | null;
  readonly replayed: ComparedEvent | null;
  readonly recordedEvents: number;
  readonly replayedEvents: number;
}

/** The child session ids a log names (`subagent_*` events' `childSessionId`), in order, once each. */
function namedChildren(events: readonly SessionEvent[]): string[] {
  const ids: string[] = [];
  for (const event of events) {
    if (!event.type.startsWith("subagent_")) continue;
    const id = (event.data as { childSessionId?: unknown } | null)?.childSessionId;
    if (typeof id === "string" && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The path of `sessionId` relative to a root known by `aliases` (its id, and for a fork the ids it
 * was forked from, whose children its copied log names): "." for the root, the rest after
 * `alias/` below it; any other id is returned unchanged.
 */
export function pathBelow(aliases: readonly string[], sessionId: string): string {
  for (const alias of aliases) {
    if (sessionId === alias) return ".";
    if (sessionId.startsWith(`${alias}/`)) return sessionId.slice(alias.length + 1);
  }
  return sessionId;
}

/** The ids a session is known by: its own, then (for a fork) the session it was copied from, and so on. */
export async function aliasesOf(store: SessionStore, sessionId: string): Promise<string[]> {
  const aliases = [sessionId];
  let summary = await store.get(sessionId);
  while (summary?.parentSessionId !== undefined && !aliases.includes(summary.parentSessionId)) {
    aliases.push(summary.parentSessionId);
    summary = await store.get(summary.parentSessionId);
  }
  return aliases;
}

/**
 * The session `rootId` and every sub-agent session below it — the children the store holds under
 * it and those its logs name — root first, then by path.
 */
export async function readTree(
  store: SessionStore,
  rootId: string,
  aliases: readonly string[] = [rootId],
): Promise<TreeSession[]> {
  const tree: TreeSession[] = [];
  const queue = [rootId];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const sessionId = queue.shift() as string;
    if (seen.has(sessionId)) continue;
    seen.add(sessionId);
    const events = await store.read(sessionId);
    if (events.length === 0 && sessionId !== rootId && !(await store.exists(sessionId))) continue;
    tree.push({ path: pathBelow(aliases, sessionId), sessionId, events });
    queue.push(...(await childSessionsOf(store, sessionId)), ...namedChildren(events));
  }
  const [root, ...children] = tree;
  return root === undefined ? [] : [root, ...children.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))];
}

/**
 * Normalizes a tree's events for comparison: times, latencies and durations, model names and
 * costs (priced by model name, at the prices of the day) are dropped; session ids become paths below the root (`childSessionId`, `parentSessionId`, a paused
 * sub-agent's `pending[].sessionId` and `pending[].path`); run ids
 * (`runId`, `childRunId`) become `run-1`, `run-2`, … in the order the tree first names them.
 */
export function normalizeTree(tree: readonly TreeSession[], aliases: readonly string[]): ComparedEvent[][] {
  const runs = new Map<string, string>();
  const runAlias = (id: unknown) => {
    if (typeof id !== "string") return id;
    if (!runs.has(id)) runs.set(id, `run-${runs.size + 1}`);
    return runs.get(id);
  };
  return tree.map((session) =>
    session.events.map((event) => {
      const data = event.data;
      if (typeof data !== "object" || data === null || Array.isArray(data)) return { type: event.type, data };
      const {
        latencyMs: _latency,
        durationMs: _duration,
        model: _model,
        cost: _cost,
        ...rest
      } = data as Record<string, unknown>;
      // Whether a request was streamed is how it was delivered (a replay runs without streaming).
      if (event.type === "model_request") delete rest.stream;
      for (const key of ["childSessionId", "parentSessionId"]) {
        if (typeof rest[key] === "string") rest[key] = pathBelow(aliases, rest[key] as string);
      }
      for (const key of ["runId", "childRunId"]) if (key in rest) rest[key] = runAlias(rest[key]);
      // A pause names the requests it waits for by their session, and the way down to them.
      if (Array.isArray(rest.pending)) rest.pending = rest.pending.map((item: unknown) => pendingBelow(aliases, item));
      return { type: event.type, data: rest };
    }),
  );
}

/** A pending request with its session ids (its own, and those of its `path`) as paths below the root. */
function pendingBelow(aliases: readonly string[], item: unknown): unknown {
  if (typeof item !== "object" || item === null) return item;
  const request = { ...(item as { sessionId?: unknown; path?: unknown }) };
  if (typeof request.sessionId === "string") request.sessionId = pathBelow(aliases, request.sessionId);
  if (Array.isArray(request.path)) {
    request.path = request.path.map((step: unknown) =>
      typeof step === "object" && step !== null && typeof (step as { sessionId?: unknown }).sessionId === "string"
        ? { ...step, sessionId: pathBelow(aliases, (step as { sessionId: string }).sessionId) }
        : step,
    );
  }
  return request;
}

/** The first difference of each session that differs, root first; sessions present on one side only included. */
export function compareTrees(
  recorded: { readonly tree: readonly TreeSession[]; readonly aliases: readonly string[] },
  replayed: { readonly tree: readonly TreeSession[]; readonly aliases: readonly string[] },
): TreeDifference[] {
  const left = normalizeTree(recorded.tree, recorded.aliases);
  const right = normalizeTree(replayed.tree, replayed.aliases);
  const paths = [...new Set([...recorded.tree, ...replayed.tree].map((session) => session.path))];
  const differences: TreeDifference[] = [];
  for (const path of paths) {
    const leftIndex = recorded.tree.findIndex((session) => session.path === path);
    const rightIndex = replayed.tree.findIndex((session) => session.path === path);
    const expected = left[leftIndex] ?? [];
    const actual = right[rightIndex] ?? [];
    for (let index = 0; index < Math.max(expected.length, actual.length, 1); index++) {
      const a = expected[index] ?? null;
      const b = actual[index] ?? null;
      if (JSON.stringify(a) === JSON.stringify(b) && (a !== null || (leftIndex >= 0 && rightIndex >= 0))) continue;
      differences.push({
        path,
        seq: index + 1,
        recorded: a,
        replayed: b,
        recordedEvents: expected.length,
        replayedEvents: actual.length,
      });
      break;
    }
  }
  return differences;
}
