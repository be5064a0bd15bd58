import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
} from "../errors/store-errors.js";
import { randomUuid } from "../platform/random-uuid.js";
import type { SessionEvent } from "../session/events.js";
import { type BlobInput, checkBlobHash, checkBlobInput, type StoredBlob, verifiedBlob } from "./blob-store.js";
import { CHAIN_START, chainChecksums, decodeVerified, type StoredEvent } from "./event-checksum.js";
import {
  acquired,
  checkAcquire,
  checkLease,
  checkTtl,
  fenceProblem,
  type LeaseRow,
  renewed,
  reportedStatus,
  toLease,
} from "./lease-rules.js";
import { applyLifecycle, prepareAppendItem } from "./prepared-append.js";
import { foldLifecycle, INITIAL_LIFECYCLE, type LifecycleState, searchTextOf, statusOf } from "./session-status.js";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  ForkOptions,
  Lease,
  ListFilter,
  ReadOptions,
  SessionPage,
  SessionStatus,
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
  /** The clock for `createdAt`/`updatedAt` and leases, in epoch milliseconds (default `Date.now`). */
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
  /** Kept when a session is deleted, so a token is never handed out twice. */
  readonly #leases = new Map<string, LeaseRow>();
  /** Blobs by hash, shared by every session; kept when a session is deleted. */
  readonly #blobs = new Map<string, { readonly mediaType: string; readonly bytes: Uint8Array }>();
  readonly #now: () => number;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void> {
    this.#checkOpen();
    const prepared = prepareAppendItem(sessionId, events, options);
    const problem = fenceProblem(sessionId, this.#leases.get(sessionId), prepared.fence, this.#now());
    if (problem !== undefined) throw problem;
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
    return session === undefined ? undefined : this.#summarize(sessionId, session, this.#now());
  }

  async list(filter?: ListFilter): Promise<SessionPage> {
    this.#checkOpen();
    const criteria = normalizeList(filter);
    const matching: { sessionId: string; updatedAtMs: number; session: MemorySession }[] = [];
    const now = this.#now();
    for (const [sessionId, session] of this.#sessions) {
      const { updatedAtMs, lifecycle } = session;
      const position = { sessionId, updatedAtMs };
      const status = reportedStatus(statusOf(lifecycle), this.#leases.get(sessionId), now);
      if (criteria.statuses !== undefined && !criteria.statuses.includes(status)) continue;
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
      sessions: page.map(({ sessionId, session }) => this.#summarize(sessionId, session, now)),
      ...(matching.length > criteria.limit && last !== undefined ? { nextCursor: encodeCursor(last) } : {}),
    };
  }

  async fork(sourceSessionId: string, options: ForkOptions): Promise<string> {
    this.#checkOpen();
    checkIdentifier("sourceSessionId", sourceSessionId);
    const newSessionId = options?.newSessionId ?? randomUuid();
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

  /**
   * Stores bytes once by hash (see `SessionStore.putBlob`).
   *
   * @example
   * await store.putBlob({ hash: blobHash(bytes), mediaType: "image/png", bytes });
   */
  async putBlob(blob: BlobInput): Promise<void> {
    this.#checkOpen();
    const bytes = checkBlobInput(blob);
    if (!this.#blobs.has(blob.hash)) this.#blobs.set(blob.hash, { mediaType: blob.mediaType, bytes: bytes.slice() });
  }

  /**
   * The blob stored under `hash` (see `SessionStore.getBlob`).
   *
   * @example
   * (await store.getBlob(hash))?.bytes;
   */
  async getBlob(hash: string): Promise<StoredBlob | undefined> {
    this.#checkOpen();
    checkBlobHash(hash);
    const row = this.#blobs.get(hash);
    return row === undefined
      ? undefined
      : verifiedBlob("memory", { hash, mediaType: row.mediaType, bytes: row.bytes.slice() });
  }

  async acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<Lease> {
    this.#checkOpen();
    checkAcquire(sessionId, options);
    const row = acquired(sessionId, this.#leases.get(sessionId), options, this.#now());
    if (row instanceof Error) throw row;
    this.#leases.set(sessionId, row);
    return toLease(sessionId, { ...row, owner: options.owner });
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    this.#checkOpen();
    checkLease(lease);
    checkTtl(ttlMs);
    const row = renewed(lease, this.#leases.get(lease.sessionId), ttlMs, this.#now());
    if (row instanceof Error) throw row;
    this.#leases.set(lease.sessionId, row);
    return toLease(lease.sessionId, { ...row, owner: lease.owner });
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#checkOpen();
    checkLease(lease);
    const row = this.#leases.get(lease.sessionId);
    if (row?.token === lease.token && row.owner !== null) this.#leases.set(lease.sessionId, { ...row, owner: null });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
    this.#leases.clear();
    this.#blobs.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreClosedError({ backend: "memory" });
  }

  #summarize(sessionId: string, session: MemorySession, nowMs: number): SessionSummary {
    return summarize(
      sessionId,
      session,
      reportedStatus(statusOf(session.lifecycle), this.#leases.get(sessionId), nowMs),
    );
  }
}

function summarize(sessionId: string, session: MemorySession, status: SessionStatus): SessionSummary {
  return toSummary({
    sessionId,
    createdAtMs: session.createdAtMs,
    updatedAtMs: session.updatedAtMs,
    lastSeq: session.events.length,
    status,
    agent: session.lifecycle.agent,
    model: session.lifecycle.model,
    parentSessionId: session.parentSessionId,
    forkedAtSeq: session.forkedAtSeq,
  });
}
