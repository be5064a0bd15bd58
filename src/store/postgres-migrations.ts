import type { ClientBase } from "pg";
import { StoreArgumentError, StoreError } from "../errors/store-errors.js";

/** One schema step. `sql` receives the quoted schema name. Released steps are never edited, only appended. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
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
