import { StoreError } from "../errors/store-errors.js";
import { CHAIN_START, eventChecksum } from "./event-checksum.js";
import type { SqliteDatabase } from "./sqlite-driver.js";

/** One SQLite schema step: its SQL, then (optionally) a data step in the same transaction. */
export interface SqliteMigration {
  readonly version: number;
  readonly sql: string;
  /** Fills what the SQL added for rows written by earlier versions. */
  readonly backfill?: (db: SqliteDatabase) => void;
}

/**
 * The SQLite schema, one entry per version; `PRAGMA user_version` records the version a file is
 * at. A release only ever appends entries. Times are epoch milliseconds; `data` is the event's
 * JSON text, stored verbatim (lossless: key order, `"__proto__"` keys, `\u0000`).
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = Object.freeze([
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
    // Each event's checksum, chained to the previous event's (see eventChecksum); backfilled.
    version: 2,
    sql: "ALTER TABLE events ADD COLUMN checksum TEXT NOT NULL DEFAULT '';",
    backfill: backfillSqliteChecksums,
  },
  {
    // Leases (one writer per session, fencing tokens). A row outlives a release (owner NULL) and the
    // session's deletion, so tokens only ever count up. expires_at is epoch ms by the store's clock.
    version: 3,
    sql: `
      CREATE TABLE leases (
        session_id TEXT PRIMARY KEY,
        owner      TEXT,
        token      INTEGER NOT NULL CHECK (token >= 1),
        expires_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    // Binary content of events (image, file, audio parts), once by hash for all sessions: a fork
    // shares it, and a row outlives the sessions that refer to it. created_at is epoch ms.
    version: 4,
    sql: `
      CREATE TABLE blobs (
        hash       TEXT PRIMARY KEY,
        media_type TEXT NOT NULL,
        size       INTEGER NOT NULL,
        bytes      BLOB NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
]);

/**
 * Brings the file's schema to the latest version, each step in its own immediate transaction (so two
 * processes opening a new file at once do not both migrate it).
 */
export function migrateSqlite(db: SqliteDatabase): void {
  const latest = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;
  for (const migration of SQLITE_MIGRATIONS) {
    db.transaction("immediate", () => {
      const current = db.pragmaValue("user_version") as number;
      if (current > latest) {
        throw new StoreError({
          backend: "sqlite",
          operation: "open",
          cause: new Error(`the database is at schema version ${current}; this release knows up to ${latest}`),
        });
      }
      if (current >= migration.version) return;
      db.exec(migration.sql);
      migration.backfill?.(db);
      db.pragma(`user_version = ${migration.version}`);
    });
  }
}

/**
 * Chains checksums over the events written before checksums existed, session by session. An event
 * whose data is not valid JSON keeps the empty checksum, so reads report it rather than the
 * migration blessing it.
 */
function backfillSqliteChecksums(db: SqliteDatabase): void {
  const sessions = db
    .prepare("SELECT DISTINCT session_id AS id FROM events")
    .all()
    .map((row) => row.id as string);
  const select = db.prepare(
    "SELECT seq, at, type, run_id AS runId, data FROM events WHERE session_id = ? ORDER BY seq",
  );
  const update = db.prepare("UPDATE events SET checksum = ? WHERE session_id = ? AND seq = ?");
  for (const sessionId of sessions) {
    const rows = select.all(sessionId) as {
      seq: number;
      at: string;
      type: string;
      runId: string | null;
      data: string;
    }[];
    let previous = CHAIN_START;
    for (const row of rows) {
      previous = isJson(row.data) ? eventChecksum(previous, row) : "";
      if (previous !== "") update.run(previous, sessionId, row.seq);
    }
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
