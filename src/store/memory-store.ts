import { randomUUID } from "node:crypto";
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
} from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import { CHAIN_START, chainChecksums, decodeVerified, type StoredEvent } from "./event-checksum.js";
import { applyLifecycle, prepareAppendItem } from "./prepared-append.js";
import { foldLifecycle, INITIAL_LIFECYCLE, type LifecycleState, searchTextOf, statusOf } from "./session-status.js";
import type {
  AppendOptions,
  ForkOptions,
  ListFilter,
  ReadOptions,
  SessionPage,
  SessionStore,
  SessionSummary,
} from "./session-store.js";
import { toSummary } from "./session-summary.js";
import {
  checkIdentifier,
  checkInteger,
  compareListOrder,
  encodeCursor,
  normalizeList,
  normalizeRead,
} from "./store-arguments.js";
import { type StoreVerification, verifySessions } from "./store-verify.js";

/** Options of `MemoryStore`. */
export interface MemoryStoreOptions {
  /** The clock for `createdAt`/`updatedAt`, in epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

interface MemorySession {
  readonly createdAtMs: number;
  updatedAtMs: number;
  lifecycle: LifecycleState;
  /** Events as JSON text with their checksums, as the persistent stores keep them: reads return fresh objects. */
  readonly events: StoredEvent[];
  readonly parentSessionId: string | null;
  readonly forkedAtSeq: number | null;
}

/**
 * A `SessionStore` in process memory: for tests and short-lived processes. It behaves exactly like
 * the persistent stores (same checks, same JSON round trip, same errors) and passes the same
 * conformance suite, but nothing survives the process.
 *
 * @example
 * const store = new MemoryStore();
 * await store.append("s1", [{ seq: 1, at: new Date().toISOString(), type: "user_message",
 *   data: { content: "hi" } }], { expectedLastSeq: 0 });
 * await store.read("s1"); // [{ seq: 1, …, sessionId: "s1" }]
 */
export class MemoryStore implements SessionStore {
  readonly #sessions = new Map<string, MemorySession>();
  readonly #now: () => number;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void> {
    this.#checkOpen();
    const prepared = prepareAppendItem(sessionId, events, options);
    const session = this.#sessions.get(sessionId);
    const actualLastSeq = session === undefined ? 0 : session.events.length;
    if (actualLastSeq !== options.expectedLastSeq) {
      throw new SessionConflictError({ sessionId, expectedLastSeq: options.expectedLastSeq, actualLastSeq });
    }
    if (prepared.events.length === 0) return;
    const lifecycle = applyLifecycle(session?.lifecycle ?? INITIAL_LIFECYCLE, prepared);
    const rows = chainChecksums(session?.events.at(-1)?.checksum ?? CHAIN_START, prepared.events);
    const now = this.#now();
    if (session === undefined) {
      this.#sessions.set(sessionId, {
        createdAtMs: now,
        updatedAtMs: now,
        lifecycle,
        events: rows,
        parentSessionId: null,
        forkedAtSeq: null,
      });
    } else {
      session.events.push(...rows);
      session.lifecycle = lifecycle;
      session.updatedAtMs = now;
    }
  }

  async read(sessionId: string, options?: ReadOptions): Promise<SessionEvent[]> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const { fromSeq, limit } = normalizeRead(options);
    const events = this.#sessions.get(sessionId)?.events;
    const rows = events?.slice(Math.max(0, fromSeq - 2), fromSeq - 1 + limit) ?? [];
    const window = { sessionId, fromSeq, limit, lastSeq: events?.length, rows };
    return decodeVerified(window, { backend: "memory", operation: "read" });
  }

  async lastSeq(sessionId: string): Promise<number> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    return this.#sessions.get(sessionId)?.events.length ?? 0;
  }

  async exists(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    return this.#sessions.has(sessionId);
  }

  async get(sessionId: string): Promise<SessionSummary | undefined> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const session = this.#sessions.get(sessionId);
    return session === undefined ? undefined : summarize(sessionId, session);
  }

  async list(filter?: ListFilter): Promise<SessionPage> {
    this.#checkOpen();
    const criteria = normalizeList(filter);
    const matching: { sessionId: string; updatedAtMs: number; session: MemorySession }[] = [];
    for (const [sessionId, session] of this.#sessions) {
      const { updatedAtMs, lifecycle } = session;
      const position = { sessionId, updatedAtMs };
      if (criteria.statuses !== undefined && !criteria.statuses.includes(statusOf(lifecycle))) continue;
      if (criteria.agent !== undefined && lifecycle.agent !== criteria.agent) continue;
      if (criteria.updatedAfterMs !== undefined && !(updatedAtMs > criteria.updatedAfterMs)) continue;
      if (criteria.updatedBeforeMs !== undefined && !(updatedAtMs < criteria.updatedBeforeMs)) continue;
      if (criteria.search !== undefined && !searchTextOf(sessionId, lifecycle).includes(criteria.search)) continue;
      if (criteria.after !== undefined && compareListOrder(position, criteria.after) <= 0) continue;
      matching.push({ ...position, session });
    }
    matching.sort(compareListOrder);
    const page = matching.slice(0, criteria.limit);
    const last = page.at(-1);
    return {
      sessions: page.map(({ sessionId, session }) => summarize(sessionId, session)),
      ...(matching.length > criteria.limit && last !== undefined ? { nextCursor: encodeCursor(last) } : {}),
    };
  }

  async fork(sourceSessionId: string, options: ForkOptions): Promise<string> {
    this.#checkOpen();
    checkIdentifier("sourceSessionId", sourceSessionId);
    const newSessionId = options?.newSessionId ?? randomUUID();
    checkIdentifier("newSessionId", newSessionId);
    const source = this.#sessions.get(sourceSessionId);
    if (source === undefined) throw new SessionNotFoundError({ sessionId: sourceSessionId });
    checkInteger("atSeq", options.atSeq, 0);
    if (options.atSeq > source.events.length) {
      throw new StoreArgumentError({
        argument: "atSeq",
        detail: `session "${sourceSessionId}" ends at seq ${source.events.length}, cannot fork at ${options.atSeq}`,
      });
    }
    if (this.#sessions.has(newSessionId)) throw new SessionExistsError({ sessionId: newSessionId });
    const events = source.events.slice(0, options.atSeq);
    let lifecycle = INITIAL_LIFECYCLE;
    for (const row of events) lifecycle = foldLifecycle(lifecycle, { type: row.type, data: JSON.parse(row.data) });
    const now = this.#now();
    this.#sessions.set(newSessionId, {
      createdAtMs: now,
      updatedAtMs: now,
      lifecycle,
      events,
      parentSessionId: sourceSessionId,
      forkedAtSeq: options.atSeq,
    });
    return newSessionId;
  }

  async delete(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    return this.#sessions.delete(sessionId);
  }

  /**
   * Checks every event's checksum chain (see `SessionStore.verify`).
   *
   * @example
   * (await store.verify()).ok; // true
   */
  async verify(sessionId?: string): Promise<StoreVerification> {
    this.#checkOpen();
    if (sessionId !== undefined) checkIdentifier("sessionId", sessionId);
    return verifySessions(this, sessionId, async () => [...this.#sessions.keys()]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreClosedError({ backend: "memory" });
  }
}

function summarize(sessionId: string, session: MemorySession): SessionSummary {
  return toSummary({
    sessionId,
    createdAtMs: session.createdAtMs,
    updatedAtMs: session.updatedAtMs,
    lastSeq: session.events.length,
    status: statusOf(session.lifecycle),
    agent: session.lifecycle.agent,
    model: session.lifecycle.model,
    parentSessionId: session.parentSessionId,
    forkedAtSeq: session.forkedAtSeq,
  });
}
