import type { SessionEvent } from "../session/events.js";
import type { BlobInput, StoredBlob } from "./blob-store.js";
import type { StoreVerification } from "./store-verification.js";

/**
 * Where a session stands, derived on append from its lifecycle events:
 * `run_started` or `run_resumed` → `"running"`, `run_completed` → `"completed"`, `run_failed` → `"failed"`; while an
 * `approval_requested` has no later `approval_decided` for its `toolCallId` → `"awaiting_approval"`;
 * a session with none of those events is `"idle"`. A session whose latest run is running but whose
 * lease is not live (expired, released, or never taken: its process died or stopped) is
 * `"interrupted"`: nothing is running it, and `agent.resume` may continue it.
 */
export type SessionStatus = "running" | "interrupted" | "completed" | "failed" | "awaiting_approval" | "idle";

/** Every status, in a stable order. */
export const SESSION_STATUSES: readonly SessionStatus[] = Object.freeze([
  "running",
  "interrupted",
  "completed",
  "failed",
  "awaiting_approval",
  "idle",
]);

/**
 * What a store knows about a session without reading its events.
 *
 * @example
 * const summary = await store.get("u42");
 * if (summary?.status === "awaiting_approval") showApprovalQueue(summary.sessionId);
 */
export interface SessionSummary {
  readonly sessionId: string;
  /** ISO 8601 time of the first append (or of the fork). */
  readonly createdAt: string;
  /** ISO 8601 time of the last append. Listing orders by it, newest first. */
  readonly updatedAt: string;
  readonly eventCount: number;
  /** The `seq` of the last event; 0 for an empty (forked at 0) session. */
  readonly lastSeq: number;
  readonly status: SessionStatus;
  /** The agent named by the latest `run_started` that names one. */
  readonly agent?: string;
  /** The model named by the latest `run_started` that names one. */
  readonly model?: string;
  /** Set on a fork: the session it was copied from … */
  readonly parentSessionId?: string;
  /** … and the last `seq` copied. */
  readonly forkedAtSeq?: number;
}

/** Options of `SessionStore.append`. */
export interface AppendOptions {
  /**
   * The session's last `seq` as the caller last saw it (0 for a new session). The append fails with
   * `SessionConflictError` when it differs, so two writers never interleave.
   */
  readonly expectedLastSeq: number;
  /**
   * The fencing token of the caller's lease (`Lease.token`). With it, the append is refused with
   * `LeaseLostError` (nothing written) unless it is the session's current token and that lease was
   * not released; the check commits atomically with the seq check. Without it, the append is refused
   * with `SessionConflictError` while any lease on the session is live.
   */
  readonly fence?: number;
}

/**
 * A run's hold on a session: while it is live, no other owner can take the session and no
 * unfenced append is accepted; appends fenced with `token` are accepted only while `token` is
 * the session's current one.
 *
 * @example
 * const lease = await store.acquireLease("u42", { owner: "worker-1", ttlMs: 30_000 });
 * await store.append("u42", events, { expectedLastSeq: 0, fence: lease.token });
 * await store.releaseLease(lease);
 */
export interface Lease {
  readonly sessionId: string;
  readonly owner: string;
  /** The fencing token: strictly greater than every token handed out before for this session, never reused. */
  readonly token: number;
  /** ISO 8601 time the lease lapses unless renewed, by the store's clock (PostgreSQL: the server's). */
  readonly expiresAt: string;
}

/**
 * Options of `SessionStore.acquireLease`.
 *
 * @example
 * await store.acquireLease("u42", { owner: `worker-${process.pid}`, ttlMs: 30_000 });
 */
export interface AcquireLeaseOptions {
  /** Who holds the lease (shown to whoever is refused). One owner per run. */
  readonly owner: string;
  /** How long the lease lasts unless renewed, in ms (1 … 86,400,000). */
  readonly ttlMs: number;
}

/** Options of `SessionStore.read`. */
export interface ReadOptions {
  /** The first `seq` to return (default 1). */
  readonly fromSeq?: number;
  /** The most events to return (default: all). */
  readonly limit?: number;
}

/**
 * Filters of `SessionStore.list`. All given filters must match.
 *
 * @example
 * await store.list({ status: ["running", "awaiting_approval"], agent: "support", limit: 20 });
 */
export interface ListFilter {
  readonly status?: SessionStatus | readonly SessionStatus[];
  /** Exact agent name. */
  readonly agent?: string;
  /** Only sessions updated strictly after this time. */
  readonly updatedAfter?: Date | string;
  /** Only sessions updated strictly before this time. */
  readonly updatedBefore?: Date | string;
  /** Case-insensitive substring of the session id, agent or model. */
  readonly search?: string;
  /** Page size, 1 … 1000 (default 50). */
  readonly limit?: number;
  /** `nextCursor` of the previous page, passed with the same filters. */
  readonly cursor?: string;
}

/** One page of `SessionStore.list`. */
export interface SessionPage {
  readonly sessions: SessionSummary[];
  /** Present when more sessions follow; pass it back as `cursor`. Opaque. */
  readonly nextCursor?: string;
}

/** Options of `SessionStore.fork`. */
export interface ForkOptions {
  /** The last `seq` copied (0 … the source's last seq). */
  readonly atSeq: number;
  /** The id of the new session (default: a random UUID). Must not exist. */
  readonly newSessionId?: string;
}

/**
 * Durable storage of session logs: append-only, optimistic concurrency per session, summaries
 * for listing. Implementations: `MemoryStore` (tests, one process), `SqliteStore` (`nous/sqlite`,
 * the default on one machine) and `PostgresStore` (`nous/postgres`, many processes). Every
 * implementation passes the store conformance suite (`runStoreConformance` of `nous/conformance`).
 *
 * Event `data` must be JSON-serializable; it is stored as JSON text and read back losslessly (key
 * order, `"__proto__"` as an own key, any unicode including `\u0000`). Events read back carry
 * `sessionId`.
 *
 * @example
 * const store = new MemoryStore();
 * const at = new Date().toISOString();
 * await store.append("u42", [
 *   { seq: 1, at, type: "run_started", data: { runId: "r1", agent: "todo" } },
 *   { seq: 2, at, type: "user_message", data: { content: "Buy milk" } },
 * ], { expectedLastSeq: 0 });
 * const events = await store.read("u42", { fromSeq: 2 }); // [{ seq: 2, …, sessionId: "u42" }]
 * await store.append("u42", [{ seq: 3, at, type: "run_completed", data: { runId: "r1" } }], {
 *   expectedLastSeq: await store.lastSeq("u42"),
 * });
 * (await store.get("u42"))?.status; // "completed"
 */
export interface SessionStore {
  /**
   * Appends `events`, all or nothing. They must be numbered `expectedLastSeq + 1, + 2, …`
   * (`EventSequenceError`); the session's last seq must be `expectedLastSeq`
   * (`SessionConflictError`, nothing written). `expectedLastSeq: 0` creates the session. Resolves
   * only once the events are committed. An empty `events` writes nothing but still checks
   * `expectedLastSeq`.
   */
  append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void>;

  /**
   * The session's events in `seq` order, from `fromSeq`; `[]` for an unknown session. Persistent
   * stores verify each event's checksum chain on the way: a damaged, missing or reordered event is
   * an `EventCorruptedError` naming the session and seq.
   */
  read(sessionId: string, options?: ReadOptions): Promise<SessionEvent[]>;

  /** The session's last `seq`, 0 when it does not exist. */
  lastSeq(sessionId: string): Promise<number>;

  /** Whether the session exists. */
  exists(sessionId: string): Promise<boolean>;

  /** The session's summary, `undefined` when it does not exist. */
  get(sessionId: string): Promise<SessionSummary | undefined>;

  /**
   * Sessions matching `filter`, newest-updated first (ties broken by session id), one page at a
   * time. A session updated while you page moves to the front and may be missed by later pages.
   */
  list(filter?: ListFilter): Promise<SessionPage>;

  /**
   * Copies events `1 … atSeq` of `sourceSessionId` into a new session that records its parent, and
   * returns the new session's id. The source is untouched: the log is never rewritten.
   * `SessionNotFoundError` when the source does not exist, `SessionExistsError` when the target does.
   */
  fork(sourceSessionId: string, options: ForkOptions): Promise<string>;

  /** Removes the session and its events; false when it did not exist. */
  delete(sessionId: string): Promise<boolean>;

  /**
   * Takes the session's lease for `owner`: succeeds when no lease is live (none yet, expired,
   * released) or the live one is `owner`'s; every success hands out a new, greater fencing token.
   * Refused with `SessionConflictError` (naming the holder and until when) while another owner's
   * lease is live. The session need not exist (a new run takes the lease before its first append).
   */
  acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<Lease>;

  /**
   * The heartbeat: extends the lease to `ttlMs` from now and returns it with its new `expiresAt`.
   * `LeaseLostError` when `lease.token` is no longer the session's current token or was released.
   * A lease that expired but was not taken over is renewed.
   */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease>;

  /** Gives the lease up, so another owner may take the session at once. Idempotent; a stale token releases nothing. */
  releaseLease(lease: Lease): Promise<void>;

  /** Waits for pending commits and releases the backend. Later calls throw `StoreClosedError`. */
  close(): Promise<void>;

  /**
   * Reads back every event of one session (`SessionNotFoundError` when it does not exist) or of the
   * whole store and checks each checksum chain; reports damage instead of throwing it. The built-in
   * stores implement it; a store of your own may leave it out (`nous sessions verify` then refuses).
   *
   * @example
   * const report = await store.verify?.();
   * if (report && !report.ok) console.error(`${report.damagedSessions} damaged sessions`);
   */
  verify?(sessionId?: string): Promise<StoreVerification>;

  /**
   * Stores binary content once by its hash, for all sessions (a fork shares it); idempotent: the
   * same bytes stored again write nothing. Refuses (`StoreArgumentError`, nothing written) a hash
   * that is not `blobHash(bytes)`. A session run writes each image or file part of its events here
   * before the event that refers to it (`blob: hash`). The built-in stores implement it; a store
   * without it keeps binary parts inline in the events' data, as they came. Blobs outlive the
   * sessions that refer to them.
   *
   * @example
   * const bytes = new Uint8Array(await readFile("chart.png"));
   * await store.putBlob?.({ hash: blobHash(bytes), mediaType: "image/png", bytes });
   */
  putBlob?(blob: BlobInput): Promise<void>;

  /**
   * The blob stored under `hash`, its bytes checked against it (`BlobDamagedError` when they do
   * not match); `undefined` when the store does not hold it. Implemented together with `putBlob`.
   *
   * @example
   * const blob = await store.getBlob?.("sha256:9f86…"); // { hash, mediaType, size, bytes }
   */
  getBlob?(hash: string): Promise<StoredBlob | undefined>;
}
