import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { NousError } from "../errors/nous-error.js";
import {
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
  StoreError,
} from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { BlobInput, StoredBlob } from "./blob-store.js";
import { decodeVerified } from "./event-checksum.js";
import { type BatchOutcome, GroupCommit } from "./group-commit.js";
import { checkAcquire, checkLease, checkTtl } from "./lease-rules.js";
import { type PreparedAppend, prepareAppendItem } from "./prepared-append.js";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  ForkOptions,
  Lease,
  ListFilter,
  ReadOptions,
  SessionPage,
  SessionStore,
  SessionSummary,
} from "./session-store.js";
import { applySqliteAppend, insertSqliteSession, type SqliteWriter, storedEvents } from "./sqlite-append.js";
import { SqliteBlobs } from "./sqlite-blobs.js";
import type { SqliteDatabase, SqliteDriverName, SqliteStatement } from "./sqlite-driver.js";
import { loadSqliteDriver } from "./sqlite-driver-load.js";
import { lifecycleUpTo } from "./sqlite-fork.js";
import { SqliteLeases } from "./sqlite-lease.js";
import { buildSqliteListQuery, type SessionRow, sqliteSummaryQuery, summaryOfRow } from "./sqlite-list-query.js";
import { checkSqliteStorage, integrityCheck, openSqliteDatabase, readSqliteSettings } from "./sqlite-open.js";
import type { IntegrityReport, SqliteSettings, SqliteStoreOptions } from "./sqlite-store-options.js";
import { checkIdentifier, checkInteger, encodeCursor, normalizeList, normalizeRead } from "./store-arguments.js";
import { type StoreVerification, verifySessions } from "./store-verify.js";

/**
 * A `SessionStore` in one SQLite file (WAL mode, schema created on open). Safe to share between
 * processes on one machine: appends run in `BEGIN IMMEDIATE` transactions that re-check the last seq.
 *
 * @example
 * import { SqliteStore } from "nous/sqlite";
 * const store = new SqliteStore({ path: "data/sessions.db", groupCommit: true });
 * await store.append("s1", events, { expectedLastSeq: 0 });
 * store.integrityCheck().ok; // true
 * await store.close();
 */
export class SqliteStore implements SessionStore {
  /** The resolved path of the database file. */
  readonly path: string;
  /** The SQLite library the store runs on. */
  readonly driver: SqliteDriverName;
  readonly #db: SqliteDatabase;
  readonly #now: () => number;
  readonly #group: GroupCommit<PreparedAppend> | undefined;
  readonly #leases: SqliteLeases;
  readonly #blobs: SqliteBlobs;
  readonly #writer: SqliteWriter = { statement: (sql) => this.#statement(sql), now: () => this.#now() };
  #closed = false;

  constructor(options: SqliteStoreOptions = {}) {
    this.path = options.path === ":memory:" ? ":memory:" : resolve(options.path ?? ".nous/sessions.db");
    this.#now = options.now ?? Date.now;
    try {
      const driver = loadSqliteDriver(options.driver);
      this.driver = driver.name;
      this.#db = openSqliteDatabase(this.path, {
        busyTimeoutMs: Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000)),
        synchronous: options.synchronous === "normal" ? "normal" : "full",
        driver,
      });
    } catch (error) {
      throw wrap("open", error);
    }
    this.#leases = new SqliteLeases(this.#db, this.#writer.statement, this.#now);
    this.#blobs = new SqliteBlobs(this.#writer.statement, this.#now);
    this.#group = options.groupCommit
      ? new GroupCommit({ start: "next-turn", commit: async (items) => this.#run("append", () => this.#commit(items)) })
      : undefined;
  }

  async append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void> {
    this.#checkOpen();
    const prepared = prepareAppendItem(sessionId, events, options);
    if (this.#group !== undefined) return this.#group.submit(prepared);
    const [outcome] = this.#run("append", () => this.#commit([prepared]));
    if (outcome !== undefined) throw outcome;
  }

  async read(sessionId: string, options?: ReadOptions): Promise<SessionEvent[]> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const { fromSeq, limit } = normalizeRead(options);
    // One read transaction, so the rows and the session's last seq come from one snapshot.
    const window = this.#run("read", () =>
      this.#db.transaction("deferred", () => ({
        sessionId,
        fromSeq,
        limit,
        lastSeq: this.#lastSeqOrUndefined(sessionId),
        rows: storedEvents(
          this.#statement(
            "SELECT seq, at, type, run_id, data, checksum FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
          ).values(
            sessionId,
            Math.max(1, fromSeq - 1),
            limit === Number.MAX_SAFE_INTEGER ? -1 : limit + (fromSeq > 1 ? 1 : 0),
          ),
        ),
      })),
    );
    return decodeVerified(window, { backend: "sqlite", operation: "read" });
  }

  async lastSeq(sessionId: string): Promise<number> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    return this.#run("lastSeq", () => this.#lastSeq(sessionId));
  }

  async exists(sessionId: string): Promise<boolean> {
    return (await this.get(sessionId)) !== undefined;
  }

  async get(sessionId: string): Promise<SessionSummary | undefined> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const query = sqliteSummaryQuery(this.#now(), sessionId);
    const row = this.#run("get", () => this.#statement(query.sql).get<SessionRow>(...query.parameters));
    return row === undefined ? undefined : summaryOfRow(row);
  }

  async list(filter?: ListFilter): Promise<SessionPage> {
    this.#checkOpen();
    const criteria = normalizeList(filter);
    const query = buildSqliteListQuery(criteria, this.#now());
    const rows = this.#run("list", () => this.#statement(query.sql).all<SessionRow>(...query.parameters));
    const page = rows.slice(0, criteria.limit);
    const last = page.at(-1);
    return {
      sessions: page.map(summaryOfRow),
      ...(rows.length > criteria.limit && last !== undefined
        ? { nextCursor: encodeCursor({ updatedAtMs: last.updated_at, sessionId: last.session_id }) }
        : {}),
    };
  }

  async fork(sourceSessionId: string, options: ForkOptions): Promise<string> {
    this.#checkOpen();
    checkIdentifier("sourceSessionId", sourceSessionId);
    const newSessionId = options?.newSessionId ?? randomUUID();
    checkIdentifier("newSessionId", newSessionId);
    checkInteger("atSeq", options.atSeq, 0);
    const atSeq = options.atSeq;
    this.#run("fork", () =>
      this.#db.transaction("immediate", () => {
        const sourceLastSeq = this.#lastSeqOrUndefined(sourceSessionId);
        if (sourceLastSeq === undefined) throw new SessionNotFoundError({ sessionId: sourceSessionId });
        if (atSeq > sourceLastSeq) {
          throw new StoreArgumentError({
            argument: "atSeq",
            detail: `session "${sourceSessionId}" ends at seq ${sourceLastSeq}, cannot fork at ${atSeq}`,
          });
        }
        if (this.#lastSeqOrUndefined(newSessionId) !== undefined) {
          throw new SessionExistsError({ sessionId: newSessionId });
        }
        const lifecycle = lifecycleUpTo(this.#writer.statement, sourceSessionId, atSeq);
        insertSqliteSession(this.#writer, newSessionId, atSeq, lifecycle, {
          parentSessionId: sourceSessionId,
          forkedAtSeq: atSeq,
        });
        this.#statement(
          "INSERT INTO events (session_id, seq, at, type, run_id, data, checksum) SELECT ?, seq, at, type, run_id, data, checksum FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq",
        ).run(newSessionId, sourceSessionId, atSeq);
      }),
    );
    return newSessionId;
  }

  async delete(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    await this.#group?.flush();
    const result = this.#run("delete", () =>
      this.#db.transaction("immediate", () => {
        this.#statement("DELETE FROM events WHERE session_id = ?").run(sessionId);
        return this.#statement("DELETE FROM sessions WHERE session_id = ?").run(sessionId);
      }),
    );
    return result.changes > 0;
  }

  async acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<Lease> {
    this.#checkOpen();
    checkAcquire(sessionId, options);
    return this.#run("acquireLease", () => this.#leases.acquire(sessionId, options));
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    this.#checkOpen();
    checkLease(lease);
    checkTtl(ttlMs);
    return this.#run("renewLease", () => this.#leases.renew(lease, ttlMs));
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#checkOpen();
    checkLease(lease);
    this.#run("releaseLease", () => this.#leases.release(lease));
  }

  /** Stores bytes once by hash (see `SessionStore.putBlob`). @example await store.putBlob({ hash, mediaType, bytes }); */
  async putBlob(blob: BlobInput): Promise<void> {
    this.#checkOpen();
    this.#run("putBlob", () => this.#blobs.put(blob));
  }

  /** The blob stored under `hash` (see `SessionStore.getBlob`). @example (await store.getBlob(hash))?.bytes; */
  async getBlob(hash: string): Promise<StoredBlob | undefined> {
    this.#checkOpen();
    return this.#run("getBlob", () => this.#blobs.get(hash));
  }

  /**
   * The connection's settings as SQLite reports them: the same durability on every driver.
   *
   * @example
   * store.settings(); // { driver: "node:sqlite", journalMode: "wal", synchronous: "full", busyTimeoutMs: 5000, … }
   */
  settings(): SqliteSettings {
    this.#checkOpen();
    return this.#run("settings", () => readSqliteSettings(this.#db));
  }

  /**
   * Runs `PRAGMA integrity_check` over the whole file.
   *
   * @example
   * const report = store.integrityCheck();
   * if (!report.ok) console.error(report.messages);
   */
  integrityCheck(): IntegrityReport {
    this.#checkOpen();
    return this.#run("integrityCheck", () => integrityCheck(this.#db));
  }

  /**
   * Reads back every event of one session, or of the whole store, checking each checksum chain;
   * for the whole store also runs `PRAGMA integrity_check` and `foreign_key_check`.
   *
   * @example
   * const report = await store.verify();
   * if (!report.ok) console.error(report.sessions.filter((session) => session.status === "damaged"));
   */
  async verify(sessionId?: string): Promise<StoreVerification> {
    this.#checkOpen();
    if (sessionId !== undefined) checkIdentifier("sessionId", sessionId);
    await this.#group?.flush();
    const ids = async () =>
      this.#run("verify", () => this.#statement("SELECT session_id AS id FROM sessions ORDER BY id").all()).map(
        (row) => row.id as string,
      );
    return verifySessions(this, sessionId, ids, () => this.#run("verify", () => checkSqliteStorage(this.#db)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group?.flush();
    this.#run("close", () => this.#db.close());
  }

  /** Commits appends in one immediate transaction; a conflicting append fails alone. */
  #commit(items: readonly PreparedAppend[]): BatchOutcome[] {
    return this.#db.transaction("immediate", () => items.map((item) => applySqliteAppend(this.#writer, item)));
  }

  #lastSeq(sessionId: string): number {
    return this.#lastSeqOrUndefined(sessionId) ?? 0;
  }

  #lastSeqOrUndefined(sessionId: string): number | undefined {
    const row = this.#statement("SELECT last_seq FROM sessions WHERE session_id = ?").get(sessionId) as
      | { last_seq: number }
      | undefined;
    return row?.last_seq;
  }

  #statement(sql: string): SqliteStatement {
    return this.#db.prepare(sql); // cached per connection
  }

  #run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw wrap(operation, error);
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreClosedError({ backend: "sqlite" });
  }
}

function wrap(operation: string, error: unknown): Error {
  return NousError.isInstance(error) ? error : new StoreError({ backend: "sqlite", operation, cause: error });
}
