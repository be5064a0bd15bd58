import type { ClientBase } from "pg";
import { StoreArgumentError, StoreError, UnrecognizedStoreError } from "../errors/store-errors.js";
import { CHAIN_START, eventChecksum } from "./event-checksum.js";

/** One schema step. `sql` receives the quoted schema name. Released steps are never edited, only appended. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
  /** Fills what the SQL added for rows written by earlier versions, in the same transaction. */
  readonly backfill?: (client: ClientBase, schema: string) => Promise<void>;
}

/**
 * The PostgreSQL schema of `PostgresStore`, versioned. Event `data` is `json`, not `jsonb`: `json`
 * keeps the text exactly as written (key order, duplicate-free `"__proto__"` keys, `\u0000`
 * escapes), where `jsonb` reorders keys and rejects `\u0000`. `session_id` uses the "C" collation so
 * listing order (and cursors) compare bytes, the same in every backend.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    name: "sessions and events",
    sql: (schema: string) => `
      CREATE TABLE ${schema}.sessions (
        session_id        text COLLATE "C" PRIMARY KEY,
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz NOT NULL,
        last_seq          integer NOT NULL CHECK (last_seq >= 0),
        status            text NOT NULL
                          CHECK (status IN ('running', 'completed', 'failed', 'awaiting_approval', 'idle')),
        run_status        text NOT NULL,
        agent             text,
        model             text,
        pending_approvals text NOT NULL,
        search_text       text NOT NULL,
        parent_session_id text,
        forked_at_seq     integer
      );
      CREATE INDEX sessions_by_update ON ${schema}.sessions (updated_at DESC, session_id DESC);
      CREATE INDEX sessions_by_status ON ${schema}.sessions (status, updated_at DESC, session_id DESC);
      CREATE INDEX sessions_by_agent ON ${schema}.sessions (agent, updated_at DESC, session_id DESC);
      CREATE TABLE ${schema}.events (
        session_id text COLLATE "C" NOT NULL REFERENCES ${schema}.sessions (session_id) ON DELETE CASCADE,
        seq        integer NOT NULL CHECK (seq >= 1),
        at         text NOT NULL,
        type       text NOT NULL,
        run_id     text,
        data       json NOT NULL,
        CONSTRAINT events_session_seq UNIQUE (session_id, seq)
      );
    `,
  },
  {
    version: 2,
    name: "event checksums",
    // Each event's checksum, chained to the previous event's (see eventChecksum). The default only
    // fills existing rows (then backfilled); new rows must bring their own.
    sql: (schema: string) => `
      ALTER TABLE ${schema}.events ADD COLUMN checksum text NOT NULL DEFAULT '';
      ALTER TABLE ${schema}.events ALTER COLUMN checksum DROP DEFAULT;
    `,
    backfill: backfillPostgresChecksums,
  },
  {
    version: 3,
    name: "leases",
    // One writer per session. A row outlives a release (owner NULL) and the session's deletion, so
    // fencing tokens only ever count up. expires_at is by the server's clock (clock_timestamp()).
    sql: (schema: string) => `
      CREATE TABLE ${schema}.leases (
        session_id text COLLATE "C" PRIMARY KEY,
        owner      text,
        token      bigint NOT NULL CHECK (token >= 1),
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "blobs",
    // Binary content of events (image, file, audio parts), once by hash for all sessions: a fork
    // shares it, and a row outlives the sessions that refer to it.
    sql: (schema: string) => `
      CREATE TABLE ${schema}.blobs (
        hash       text COLLATE "C" PRIMARY KEY,
        media_type text NOT NULL,
        size       integer NOT NULL CHECK (size >= 0),
        bytes      bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
]);

/**
 * `"name"` quoted as a PostgreSQL identifier. Throws `StoreArgumentError` for an empty name, one
 * with `\u0000`, or one longer than PostgreSQL's 63 bytes.
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== "string" || name === "" || name.includes("\u0000") || Buffer.byteLength(name) > 63) {
    throw new StoreArgumentError({ argument: "schema", detail: "expected a PostgreSQL identifier of 1 to 63 bytes" });
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Brings `schema` to the latest version: creates it if needed, then applies each pending migration
 * in one transaction, recording it in `<schema>.nous_migrations`. Idempotent, and safe when several
 * processes start at once (an advisory lock serializes them).
 *
 * @example
 * const client = await pool.connect();
 * try { await migratePostgres(client, "nous") } finally { client.release() }
 */
export async function migratePostgres(client: ClientBase, schema: string): Promise<number> {
  const quoted = quoteIdentifier(schema);
  const latest = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`nous.migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.nous_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.nous_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    await checkTables(client, schema, current);
    if (current > latest) {
      throw new StoreError({
        backend: "postgres",
        operation: "migrate",
        cause: new Error(`schema ${schema} is at version ${current}; this release knows up to ${latest}`),
      });
    }
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(quoted));
      await migration.backfill?.(client, quoted);
      await client.query(`INSERT INTO ${quoted}.nous_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
    return latest;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Refuses a schema whose `sessions` or `events` tables Nous did not create (no migration recorded),
 * and one that records migrations but lost those tables. Other tables in the schema are fine.
 */
async function checkTables(client: ClientBase, schema: string, current: number): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename IN ('sessions', 'events') ORDER BY tablename",
    [schema],
  );
  const present = rows.map((row) => row.name);
  if (current === 0 && present.length > 0) {
    throw new UnrecognizedStoreError({
      backend: "postgres",
      location: `schema ${schema}`,
      reason: "foreign_schema",
      detail: `it already has table${present.length > 1 ? "s" : ""} ${present.join(" and ")} that Nous did not create (no Nous migration is recorded). Nous does not write into them: choose another schema (the "schema" option, or ?schema= in the URL)`,
    });
  }
  const missing = ["events", "sessions"].filter((name) => !present.includes(name));
  if (current > 0 && missing.length > 0) {
    throw new UnrecognizedStoreError({
      backend: "postgres",
      location: `schema ${schema}`,
      reason: "missing_tables",
      detail: `it records Nous schema version ${current} but has no ${missing.join(" or ")} table. Restore it from a backup`,
    });
  }
}

/** Chains checksums over the events written before checksums existed, a page of rows at a time. */
async function backfillPostgresChecksums(client: ClientBase, schema: string): Promise<void> {
  const page = 5000;
  let after: { sessionId: string; seq: number } = { sessionId: "", seq: 0 };
  let previous = { sessionId: "", checksum: CHAIN_START };
  for (;;) {
    const { rows } = await client.query<{
      sessionId: string;
      seq: number;
      at: string;
      type: string;
      runId: string | null;
      data: string;
    }>(
      `SELECT session_id AS "sessionId", seq, at, type, run_id AS "runId", data::text AS data FROM ${schema}.events
       WHERE (session_id, seq) > ($1, $2) ORDER BY session_id, seq LIMIT ${page}`,
      [after.sessionId, after.seq],
    );
    const checksums = rows.map((row) => {
      const seed = row.sessionId === previous.sessionId ? previous.checksum : CHAIN_START;
      previous = { sessionId: row.sessionId, checksum: eventChecksum(seed, row) };
      return previous.checksum;
    });
    await client.query(
      `UPDATE ${schema}.events AS e SET checksum = u.checksum
       FROM unnest($1::text[], $2::int[], $3::text[]) AS u(session_id, seq, checksum)
       WHERE e.session_id = u.session_id AND e.seq = u.seq`,
      [rows.map((row) => row.sessionId), rows.map((row) => row.seq), checksums],
    );
    const last = rows.at(-1);
    if (last === undefined || rows.length < page) return;
    after = { sessionId: last.sessionId, seq: last.seq };
  }
}
