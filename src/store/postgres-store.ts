import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { NousError } from "../errors/nous-error.js";
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
  StoreError,
} from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { BlobInput, StoredBlob } from "./blob-store.js";
import { decodeVerified, parseStoredData, type StoredEvent } from "./event-checksum.js";
import { type BatchOutcome, GroupCommit } from "./group-commit.js";
import { checkAcquire, checkLease, checkTtl } from "./lease-rules.js";
import { buildListQuery, type ListQueryDialect, type SessionRowColumns, summarySelect } from "./list-query.js";
import { commitAppendBatch, type PostgresTables, RETRYABLE_CODES } from "./postgres-append.js";
import { getPostgresBlob, putPostgresBlob } from "./postgres-blobs.js";
import { guardPool, withClient } from "./postgres-client.js";
import { pg } from "./postgres-driver.js";
import { acquirePostgresLease, releasePostgresLease, renewPostgresLease } from "./postgres-lease.js";
import { migratePostgres, quoteIdentifier } from "./postgres-migrations.js";
import { summaryOfRow } from "./postgres-rows.js";
import { type PreparedAppend, prepareAppendItem } from "./prepared-append.js";
import { foldLifecycle, INITIAL_LIFECYCLE, LIFECYCLE_EVENT_TYPES, searchTextOf, statusOf } from "./session-status.js";
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
import { checkIdentifier, checkInteger, encodeCursor, normalizeList, normalizeRead } from "./store-arguments.js";
import { type StoreVerification, verifySessions } from "./store-verify.js";

/** Options of `PostgresStore.connect`. */
export interface PostgresStoreOptions {
  /** The schema holding the tables, created and migrated on connect (default `"nous"`). */
  readonly schema?: string;
  /**
   * Coalesce appends that arrive while a commit is in flight into the next transaction (default
   * false). Each caller still resolves only after its own events are committed.
   */
  readonly groupCommit?: boolean;
  /** Connections of the pool created for a URL (default 10; ignored when a pool is given). */
  readonly poolSize?: number;
  /** The clock for `createdAt`/`updatedAt`, in epoch milliseconds (default `Date.now`). Leases use the server's clock. */
  readonly now?: () => number;
}

/**
 * A `SessionStore` in PostgreSQL: many processes and machines can share it. Appends take a row
 * lock on the session and re-check its last seq in the transaction; `UNIQUE (session_id, seq)`
 * backs that up for sessions created concurrently.
 *
 * @example
 * import { PostgresStore } from "nous/postgres";
 * const store = await PostgresStore.connect(process.env.DATABASE_URL!, { groupCommit: true });
 * await store.append("s1", events, { expectedLastSeq: 0 });
 * await store.close(); // ends the pool it created
 */
export class PostgresStore implements SessionStore {
  /** The unquoted schema name. */
  readonly schema: string;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #tables: PostgresTables;
  readonly #now: () => number;
  readonly #group: GroupCommit<PreparedAppend> | undefined;
  readonly #unguard: () => void;
  #closed = false;

  private constructor(
    pool: Pool,
    ownsPool: boolean,
    unguard: () => void,
    schema: string,
    options: PostgresStoreOptions,
  ) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#unguard = unguard;
    this.schema = schema;
    const quoted = quoteIdentifier(schema);
    this.#tables = { sessions: `${quoted}.sessions`, events: `${quoted}.events`, leases: `${quoted}.leases` };
    this.#now = options.now ?? Date.now;
    this.#group = options.groupCommit
      ? new GroupCommit({ start: "now", commit: (items) => this.#run("append", () => this.#commit(items)) })
      : undefined;
  }

  /**
   * Connects to a URL (creating a pool the store owns) or uses your pool (left open by `close`),
   * then creates and migrates the schema. A connection that dies (a terminated backend, a restarted
   * server) never crashes the process: the call using it fails with `StoreError`, the next call
   * connects afresh. While the store is open it listens for your pool's `'error'` events.
   *
   * @example
   * const store = await PostgresStore.connect("postgres://localhost/app", { schema: "agents" });
   */
  static async connect(connection: string | Pool, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const schema = options.schema ?? "nous";
    quoteIdentifier(schema);
    const ownsPool = typeof connection === "string";
    const pool =
      typeof connection === "string"
        ? new pg.Pool({ connectionString: connection, max: options.poolSize ?? 10 })
        : connection;
    const unguard = guardPool(pool);
    try {
      await withClient(pool, (client) => migratePostgres(client, schema));
    } catch (error) {
      unguard();
      if (ownsPool) await pool.end().catch(() => undefined);
      throw wrap("connect", error);
    }
    return new PostgresStore(pool, ownsPool, unguard, schema, options);
  }

  async append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void> {
    this.#checkOpen();
    const prepared = prepareAppendItem(sessionId, events, options);
    if (this.#group !== undefined) return this.#group.submit(prepared);
    const [outcome] = await this.#run("append", () => this.#commit([prepared]));
    if (outcome !== undefined) throw outcome;
  }

  async read(sessionId: string, options?: ReadOptions): Promise<SessionEvent[]> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const { fromSeq, limit } = normalizeRead(options);
    // One statement, so the rows and the session's last seq come from one snapshot.
    const { rows } = await this.#run("read", () =>
      this.#pool.query<StoredEvent & { lastSeq: number; seq: number | null }>(
        `SELECT s.last_seq AS "lastSeq", e.seq, e.at, e.type, e.run_id AS "runId", e.data, e.checksum
         FROM ${this.#tables.sessions} s LEFT JOIN LATERAL (
           SELECT seq, at, type, run_id, data::text AS data, checksum FROM ${this.#tables.events}
           WHERE session_id = s.session_id AND seq >= $2 ORDER BY seq LIMIT $3
         ) e ON true
         WHERE s.session_id = $1 ORDER BY e.seq`,
        [sessionId, Math.max(1, fromSeq - 1), limit === Number.MAX_SAFE_INTEGER ? null : limit + (fromSeq > 1 ? 1 : 0)],
      ),
    );
    const window = {
      sessionId,
      fromSeq,
      limit,
      lastSeq: rows[0]?.lastSeq,
      rows: rows.filter((row) => row.seq !== null),
    };
    return decodeVerified(window, { backend: "postgres", operation: "read" });
  }

  async lastSeq(sessionId: string): Promise<number> {
    return (await this.get(sessionId))?.lastSeq ?? 0;
  }

  async exists(sessionId: string): Promise<boolean> {
    return (await this.get(sessionId)) !== undefined;
  }

  async get(sessionId: string): Promise<SessionSummary | undefined> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    const sql = `${summarySelect(this.#dialect(), () => "")} WHERE s.session_id = $1`;
    const { rows } = await this.#run("get", () => this.#pool.query<SessionRowColumns<Date>>(sql, [sessionId]));
    return rows[0] === undefined ? undefined : summaryOfRow(rows[0]);
  }

  async list(filter?: ListFilter): Promise<SessionPage> {
    this.#checkOpen();
    const criteria = normalizeList(filter);
    const query = buildListQuery(criteria, this.#dialect());
    const { rows } = await this.#run("list", () =>
      this.#pool.query<SessionRowColumns<Date>>(query.sql, query.parameters),
    );
    const page = rows.slice(0, criteria.limit);
    const last = page.at(-1);
    return {
      sessions: page.map(summaryOfRow),
      ...(rows.length > criteria.limit && last !== undefined
        ? { nextCursor: encodeCursor({ updatedAtMs: last.updated_at.getTime(), sessionId: last.session_id }) }
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
    await this.#transaction("fork", async (client) => {
      const source = await client.query<{ last_seq: number }>(
        `SELECT last_seq FROM ${this.#tables.sessions} WHERE session_id = $1 FOR SHARE`,
        [sourceSessionId],
      );
      const sourceLastSeq = source.rows[0]?.last_seq;
      if (sourceLastSeq === undefined) throw new SessionNotFoundError({ sessionId: sourceSessionId });
      if (atSeq > sourceLastSeq) {
        throw new StoreArgumentError({
          argument: "atSeq",
          detail: `session "${sourceSessionId}" ends at seq ${sourceLastSeq}, cannot fork at ${atSeq}`,
        });
      }
      const lifecycleRows = await client.query<{ seq: number; type: string; data: string }>(
        `SELECT seq, type, data::text AS data FROM ${this.#tables.events} WHERE session_id = $1 AND seq <= $2 AND type = ANY($3::text[]) ORDER BY seq`,
        [sourceSessionId, atSeq, LIFECYCLE_EVENT_TYPES],
      );
      let lifecycle = INITIAL_LIFECYCLE;
      for (const row of lifecycleRows.rows) {
        const data = parseStoredData(row.data, { sessionId: sourceSessionId, seq: row.seq }, forkSite);
        lifecycle = foldLifecycle(lifecycle, { type: row.type, data });
      }
      const now = new Date(this.#now()).toISOString();
      const inserted = await client.query(
        `INSERT INTO ${this.#tables.sessions} (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text, parent_session_id, forked_at_seq)
         VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $3) ON CONFLICT (session_id) DO NOTHING`,
        [
          newSessionId,
          now,
          atSeq,
          statusOf(lifecycle),
          lifecycle.runStatus,
          lifecycle.agent,
          lifecycle.model,
          JSON.stringify(lifecycle.pendingApprovals),
          searchTextOf(newSessionId, lifecycle),
          sourceSessionId,
        ],
      );
      if (inserted.rowCount !== 1) throw new SessionExistsError({ sessionId: newSessionId });
      await client.query(
        `INSERT INTO ${this.#tables.events} (session_id, seq, at, type, run_id, data, checksum)
         SELECT $1, seq, at, type, run_id, data, checksum FROM ${this.#tables.events} WHERE session_id = $2 AND seq <= $3 ORDER BY seq`,
        [newSessionId, sourceSessionId, atSeq],
      );
    });
    return newSessionId;
  }

  async delete(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    checkIdentifier("sessionId", sessionId);
    await this.#group?.flush();
    const result = await this.#run("delete", () =>
      this.#pool.query(`DELETE FROM ${this.#tables.sessions} WHERE session_id = $1`, [sessionId]),
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Reads back every event of one session, or of the whole schema, checking each checksum chain.
   *
   * @example
   * const report = await store.verify("s1");
   * if (!report.ok) console.error(report.sessions[0]);
   */
  async verify(sessionId?: string): Promise<StoreVerification> {
    this.#checkOpen();
    if (sessionId !== undefined) checkIdentifier("sessionId", sessionId);
    await this.#group?.flush();
    const ids = async () => {
      const { rows } = await this.#run("verify", () =>
        this.#pool.query<{ id: string }>(`SELECT session_id AS id FROM ${this.#tables.sessions} ORDER BY session_id`),
      );
      return rows.map((row) => row.id);
    };
    return verifySessions(this, sessionId, ids);
  }

  async putBlob(blob: BlobInput): Promise<void> {
    this.#checkOpen();
    await this.#run("putBlob", () => putPostgresBlob(this.#pool, `${quoteIdentifier(this.schema)}.blobs`, blob));
  }

  async getBlob(hash: string): Promise<StoredBlob | undefined> {
    this.#checkOpen();
    return this.#run("getBlob", () => getPostgresBlob(this.#pool, `${quoteIdentifier(this.schema)}.blobs`, hash));
  }

  async acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<Lease> {
    this.#checkOpen();
    checkAcquire(sessionId, options);
    return this.#run("acquireLease", () => acquirePostgresLease(this.#pool, this.#tables.leases, sessionId, options));
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    this.#checkOpen();
    checkLease(lease);
    checkTtl(ttlMs);
    return this.#run("renewLease", () => renewPostgresLease(this.#pool, this.#tables.leases, lease, ttlMs));
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#checkOpen();
    checkLease(lease);
    await this.#run("releaseLease", () => releasePostgresLease(this.#pool, this.#tables.leases, lease));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group?.flush();
    if (this.#ownsPool) await this.#run("close", () => this.#pool.end());
    else this.#unguard();
  }

  /** Commits a batch; when a concurrent writer aborts it, retries the items one by one. */
  async #commit(items: readonly PreparedAppend[], attempt = 0): Promise<BatchOutcome[]> {
    let failure: unknown;
    try {
      return await withClient(this.#pool, (client) => commitAppendBatch(client, this.#tables, items, this.#now()));
    } catch (error) {
      failure = error;
    }
    const code = (failure as { code?: unknown }).code;
    if (typeof code !== "string" || !RETRYABLE_CODES.has(code)) throw failure;
    if (items.length > 1) {
      const outcomes: BatchOutcome[] = [];
      for (const item of items) outcomes.push(...(await this.#commitOne(item)));
      return outcomes;
    }
    const [item] = items as [PreparedAppend];
    if (code === "23505") {
      // Another writer created the session first: report what it holds now.
      const { rows } = await this.#pool.query<{ last_seq: number }>(
        `SELECT last_seq FROM ${this.#tables.sessions} WHERE session_id = $1`,
        [item.sessionId],
      );
      const actualLastSeq = rows[0]?.last_seq ?? 0;
      if (actualLastSeq !== item.expectedLastSeq || attempt >= 3) {
        const { sessionId, expectedLastSeq } = item;
        return [new SessionConflictError({ sessionId, expectedLastSeq, actualLastSeq })];
      }
    }
    if (attempt >= 3) throw failure;
    return this.#commit(items, attempt + 1);
  }

  async #commitOne(item: PreparedAppend): Promise<BatchOutcome[]> {
    try {
      return await this.#commit([item]);
    } catch (error) {
      return [wrap("append", error)];
    }
  }

  async #transaction(operation: string, body: (client: PoolClient) => Promise<void>): Promise<void> {
    await this.#run(operation, () =>
      withClient(this.#pool, async (client) => {
        await client.query("BEGIN");
        try {
          await body(client);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw error;
        }
      }),
    );
  }

  async #run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw wrap(operation, error);
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreClosedError({ backend: "postgres" });
  }

  /** PostgreSQL's dialect; lease expiry is judged by the server's clock. */
  #dialect(): ListQueryDialect {
    return {
      table: this.#tables.sessions,
      leases: this.#tables.leases,
      now: () => "clock_timestamp()",
      placeholder: (index) => `$${index}`,
      time: (ms) => new Date(ms).toISOString(),
      contains: (column, needle) => `strpos(${column}, ${needle}) > 0`,
    };
  }
}

const forkSite = { backend: "postgres", operation: "fork" } as const;

function wrap(operation: string, error: unknown): Error {
  return NousError.isInstance(error) ? error : new StoreError({ backend: "postgres", operation, cause: error });
}
