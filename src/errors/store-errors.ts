import { NousError, UserError } from "./nous-error.js";

/**
 * What `SessionConflictError` reports: a seq race, or a live run's lease.
 *
 * @example
 * new SessionConflictError({ sessionId: "s1", heldBy: "worker-7", heldUntil: new Date().toISOString() });
 */
export type SessionConflictFields =
  | { readonly sessionId: string; readonly expectedLastSeq: number; readonly actualLastSeq: number }
  | { readonly sessionId: string; readonly heldBy: string; readonly heldUntil: string };

/**
 * Another writer holds or got to the session first. `reason` tells which:
 *
 * - `"concurrent_append"`: an append's `expectedLastSeq` does not match the session's last `seq`.
 *   Re-read the session, decide again, and append with the new last seq.
 * - `"lease_held"`: a live run holds the session's lease (`heldBy`, until `heldUntil` unless it
 *   renews it): a resume, a new run, a lease or an unfenced append is refused and nothing changed.
 *   Resume once that run has ended or its lease expired (status `"interrupted"`).
 *
 * @example
 * try {
 *   await agent.resume("s1", { store });
 * } catch (error) {
 *   if (error instanceof SessionConflictError && error.reason === "lease_held") {
 *     console.log(`busy: ${error.heldBy} until ${error.heldUntil}`);
 *   }
 * }
 */
export class SessionConflictError extends NousError {
  readonly code = "session_conflict";
  readonly fault = "conflict" as const;
  readonly reason: "concurrent_append" | "lease_held";
  readonly sessionId: string;
  /** For `"concurrent_append"`: the last seq the writer expected … */
  readonly expectedLastSeq: number | undefined;
  /** … and the one the session has. */
  readonly actualLastSeq: number | undefined;
  /** For `"lease_held"`: the owner of the live lease … */
  readonly heldBy: string | undefined;
  /** … and when it lapses unless renewed (ISO 8601, by the store's clock). */
  readonly heldUntil: string | undefined;

  constructor(fields: SessionConflictFields) {
    super({
      message:
        "heldBy" in fields
          ? `Session "${fields.sessionId}" is held by a live run (lease owner "${fields.heldBy}", until ${fields.heldUntil} unless renewed); resume it once that run has ended or its lease expired`
          : `Session "${fields.sessionId}" was appended to concurrently: expected last seq ${fields.expectedLastSeq}, found ${fields.actualLastSeq}`,
    });
    this.sessionId = fields.sessionId;
    if ("heldBy" in fields) {
      this.reason = "lease_held";
      this.heldBy = fields.heldBy;
      this.heldUntil = fields.heldUntil;
    } else {
      this.reason = "concurrent_append";
      this.expectedLastSeq = fields.expectedLastSeq;
      this.actualLastSeq = fields.actualLastSeq;
    }
  }
}

/**
 * A session that must be new already exists (the target of a `fork`).
 *
 * @example
 * await store.fork("s1", { atSeq: 3, newSessionId: "s1" }); // throws SessionExistsError
 */
export class SessionExistsError extends NousError {
  readonly code = "session_exists";
  readonly fault = "conflict" as const;
  readonly sessionId: string;

  constructor(fields: { sessionId: string }) {
    super({ message: `Session "${fields.sessionId}" already exists` });
    this.sessionId = fields.sessionId;
  }
}

/**
 * The operation needs a session that the store does not hold.
 *
 * @example
 * await store.fork("missing", { atSeq: 1 }); // throws SessionNotFoundError
 */
export class SessionNotFoundError extends UserError {
  readonly code = "session_not_found";
  readonly sessionId: string;

  constructor(fields: { sessionId: string }) {
    super({ message: `Session "${fields.sessionId}" does not exist` });
    this.sessionId = fields.sessionId;
  }
}

/**
 * The events of an append are not numbered `expectedLastSeq + 1, + 2, …`. Nothing was written.
 *
 * @example
 * await store.append("s1", [{ seq: 3, … }], { expectedLastSeq: 0 }); // throws: expected seq 1
 */
export class EventSequenceError extends UserError {
  readonly code = "event_sequence";
  readonly sessionId: string;
  readonly index: number;
  readonly expectedSeq: number;
  readonly actualSeq: unknown;

  constructor(fields: { sessionId: string; index: number; expectedSeq: number; actualSeq: unknown }) {
    super({
      message: `Event ${fields.index} appended to session "${fields.sessionId}" has seq ${String(fields.actualSeq)}, expected ${fields.expectedSeq}`,
    });
    this.sessionId = fields.sessionId;
    this.index = fields.index;
    this.expectedSeq = fields.expectedSeq;
    this.actualSeq = fields.actualSeq;
  }
}

/**
 * An event's `data` holds a value JSON cannot represent losslessly (a function, bigint, symbol,
 * cycle, `undefined` in an array, a non-finite number, a Map or other class instance). Raised
 * before anything of the append is written.
 *
 * @example
 * await store.append("s1", [{ seq: 1, at, type: "audit", data: { n: 1n } }], { expectedLastSeq: 0 });
 * // EventNotSerializableError: Event "audit" (seq 1) data.n: a bigint (JSON has no bigints); session events must be JSON-serializable
 */
export class EventNotSerializableError extends UserError {
  readonly code = "event_not_serializable";
  readonly eventType: string;
  readonly seq: number;
  /** Where in the event the value sits, e.g. `data.items[2].callback`. */
  readonly path: string;

  constructor(fields: { eventType: string; seq: number; path: string; detail: string }) {
    super({
      message: `Event "${fields.eventType}" (seq ${fields.seq}) ${fields.path}: ${fields.detail}; session events must be JSON-serializable`,
    });
    this.eventType = fields.eventType;
    this.seq = fields.seq;
    this.path = fields.path;
  }
}

/**
 * A store method was called with an invalid argument (an empty session id, a malformed cursor, a
 * fork point past the end of the session, a negative limit).
 *
 * @example
 * await store.list({ cursor: "not-a-cursor" }); // throws StoreArgumentError (argument "cursor")
 */
export class StoreArgumentError extends UserError {
  readonly code = "invalid_store_argument";
  readonly argument: string;

  constructor(fields: { argument: string; detail: string }) {
    super({ message: `Invalid ${fields.argument}: ${fields.detail}` });
    this.argument = fields.argument;
  }
}

/**
 * The store was used after `close()`.
 *
 * @example
 * await store.close();
 * await store.read("s1"); // throws StoreClosedError
 */
export class StoreClosedError extends UserError {
  readonly code = "store_closed";

  constructor(fields: { backend: string }) {
    super({ message: `The ${fields.backend} session store is closed` });
  }
}

/** The codes of `StoreError` and its subclasses. */
export type StoreErrorCode = "store_failure" | "event_corrupted" | "store_unrecognized" | "blob_damaged";

/**
 * The storage backend failed (disk full, connection lost, corrupt file). `cause` holds the driver's
 * error; `operation` names the store method. Whether the operation took effect is unknown only
 * for `append`'s commit itself; re-read `lastSeq` before retrying.
 *
 * @example
 * try { await store.read("s1") } catch (error) {
 *   if (error instanceof StoreError) console.error(error.backend, error.operation, error.cause);
 * }
 */
export class StoreError extends NousError {
  readonly code: StoreErrorCode = "store_failure";
  readonly fault = "store" as const;
  readonly backend: string;
  readonly operation: string;

  constructor(fields: { backend: string; operation: string; cause: unknown; message?: string }) {
    super({
      message:
        fields.message ??
        `The ${fields.backend} session store failed during ${fields.operation}: ${describeCause(fields.cause)}`,
      cause: fields.cause,
    });
    this.backend = fields.backend;
    this.operation = fields.operation;
  }
}

function describeCause(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/** What is wrong with a damaged event. */
export type EventDamage =
  /** The stored checksum does not match the event's content chained to the previous event's checksum. */
  | "checksum_mismatch"
  /** The stored data is not valid JSON. */
  | "invalid_json"
  /** Events are missing: a gap in the seqs, or fewer events than the session's summary records. */
  | "missing_events"
  /** An event with a seq past the session's recorded last seq. */
  | "unexpected_event"
  /** The event refers to a binary blob the store does not hold (see `BlobDamagedError`). */
  | "blob_missing"
  /** The event refers to a binary blob whose stored bytes do not hash to its name. */
  | "blob_mismatch";

/**
 * A stored event is damaged: its bytes changed (checksum mismatch, invalid JSON), or events were
 * removed or added behind the store's back. Nothing of the read is returned. The store's other
 * sessions are unaffected; `store.verify()` (or `nous sessions verify`) lists every damaged session.
 * Restore the session from a backup, or fork its undamaged prefix (`fork` at `seq - 1`).
 *
 * @example
 * try { await store.read("s1") } catch (error) {
 *   if (error instanceof EventCorruptedError) console.error(error.sessionId, error.seq, error.damage);
 * }
 */
export class EventCorruptedError extends StoreError {
  override readonly code = "event_corrupted" as const;
  readonly sessionId: string;
  /** The first damaged (or missing) seq. */
  readonly seq: number;
  readonly damage: EventDamage;
  /** What is wrong, in words (the message without the session and seq). */
  readonly detail: string;

  constructor(fields: {
    backend: string;
    operation: string;
    sessionId: string;
    seq: number;
    damage: EventDamage;
    detail: string;
    cause?: unknown;
  }) {
    super({
      backend: fields.backend,
      operation: fields.operation,
      cause: fields.cause,
      message: `The ${fields.backend} session store holds a damaged event: session "${fields.sessionId}", seq ${fields.seq}: ${fields.detail}`,
    });
    this.sessionId = fields.sessionId;
    this.seq = fields.seq;
    this.damage = fields.damage;
    this.detail = fields.detail;
  }
}

/** Why an existing store location was not recognised as a Nous store. */
export type UnrecognizedStoreReason =
  /** A 0-byte file. */
  | "empty_file"
  /** A file that is not an SQLite database. */
  | "not_sqlite"
  /** An SQLite file or PostgreSQL schema with tables but without the Nous schema. */
  | "foreign_schema"
  /** A store that records a Nous schema version but lacks its tables. */
  | "missing_tables";

/**
 * An existing file or schema is not a Nous session store (empty, not SQLite, another application's
 * tables, or missing its tables). It is refused rather than re-initialised, so a truncated or
 * mistaken store never silently opens empty. Only a location that did not exist is created.
 *
 * @example
 * try { new SqliteStore({ path: "data/sessions.db" }) } catch (error) {
 *   if (error instanceof UnrecognizedStoreError) console.error(error.reason, error.location);
 * }
 */
export class UnrecognizedStoreError extends StoreError {
  override readonly code = "store_unrecognized" as const;
  /** The file path, or the PostgreSQL schema name. */
  readonly location: string;
  readonly reason: UnrecognizedStoreReason;

  constructor(fields: { backend: string; location: string; reason: UnrecognizedStoreReason; detail: string }) {
    super({
      backend: fields.backend,
      operation: "open",
      cause: undefined,
      message: `${fields.location} is not a Nous session store: ${fields.detail}`,
    });
    this.location = fields.location;
    this.reason = fields.reason;
  }
}
