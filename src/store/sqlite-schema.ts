import type { Database } from "better-sqlite3";
import { StoreError } from "../errors/store-errors.js";

/**
 * The SQLite schema, one entry per version; `PRAGMA user_version` records the version a file is
 * at. A release only ever appends entries. Times are epoch milliseconds; `data` is the event's
 * JSON text, stored verbatim (lossless: key order, `"__proto__"` keys, `\u0000`).
 */
export const SQLITE_MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = Object.freeze([
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        session_id        TEXT PRIMARY KEY,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        last_seq          INTEGER NOT NULL,
        status            TEXT NOT NULL,
        run_status        TEXT NOT NULL,
        agent             TEXT,
        model             TEXT,
        pending_approvals TEXT NOT NULL,
        search_text       TEXT NOT NULL,
        parent_session_id TEXT,
        forked_at_seq     INTEGER
      ) STRICT;
      CREATE INDEX sessions_by_update ON sessions (updated_at DESC, session_id DESC);
      CREATE INDEX sessions_by_status ON sessions (status, updated_at DESC, session_id DESC);
      CREATE INDEX sessions_by_agent ON sessions (agent, updated_at DESC, session_id DESC);
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        at         TEXT NOT NULL,
        type       TEXT NOT NULL,
        run_id     TEXT,
        data       TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) STRICT;
    `,
  },
  {
    // Leases (one writer per session, fencing tokens). A row outlives a release (owner NULL) and the
    // session's deletion, so tokens only ever count up. expires_at is epoch ms by the store's clock.
    version: 2,
    sql: `
      CREATE TABLE leases (
        session_id TEXT PRIMARY KEY,
        owner      TEXT,
        token      INTEGER NOT NULL CHECK (token >= 1),
        expires_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
]);

/**
 * Brings the file's schema to the latest version, each step in its own immediate transaction (so two
 * processes opening a new file at once do not both migrate it).
 */
export function migrateSqlite(db: Database): void {
  const latest = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;
  for (const migration of SQLITE_MIGRATIONS) {
    db.transaction(() => {
      const current = db.pragma("user_version", { simple: true }) as number;
      if (current > latest) {
        throw new StoreError({
          backend: "sqlite",
          operation: "open",
          cause: new Error(`the database is at schema version ${current}; this release knows up to ${latest}`),
        });
      }
      if (current >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
