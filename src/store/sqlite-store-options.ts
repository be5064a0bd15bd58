import type { SqliteDriverName } from "./sqlite-driver.js";

/** Options of `SqliteStore`. */
export interface SqliteStoreOptions {
  /**
   * The database file (default `.nous/sessions.db` under `process.cwd()`; its directory is created).
   * A missing file is created; an existing one must be a Nous store (else `UnrecognizedStoreError`).
   */
  readonly path?: string;
  /**
   * `"full"` (default): every commit is fsynced before `append` resolves, so an acknowledged event
   * survives a power cut or OS crash. `"normal"`: in WAL mode commits are not fsynced (only
   * checkpoints are); an acknowledged event survives a process crash but the last few may be lost
   * on power failure. Group commit makes `"full"` cheap.
   */
  readonly synchronous?: "full" | "normal";
  /** Coalesce appends made in the same event-loop turn into one transaction (default false). */
  readonly groupCommit?: boolean;
  /** How long to wait for another process's write lock, in ms (default 5000). */
  readonly busyTimeoutMs?: number;
  /**
   * The clock for `createdAt`/`updatedAt` and lease expiry, in epoch milliseconds (default
   * `Date.now`). Processes sharing the file share the machine's clock.
   */
  readonly now?: () => number;
  /**
   * The SQLite library; by default the runtime's (`node:sqlite` on Node.js ≥ 22.13 and Deno, `bun:sqlite`
   * on Bun, else the `better-sqlite3` peer). One this runtime lacks is a `SqliteDriverMissingError`.
   */
  readonly driver?: SqliteDriverName;
}

/** The result of `SqliteStore.integrityCheck`. */
export interface IntegrityReport {
  readonly ok: boolean;
  /** What `PRAGMA integrity_check` reported (`["ok"]` when healthy). */
  readonly messages: readonly string[];
}

/** What `SqliteStore.settings()` reports, read back from SQLite. */
export interface SqliteSettings {
  readonly driver: SqliteDriverName;
  /** `sqlite_version()` of the library the driver carries. */
  readonly sqliteVersion: string;
  /** `"wal"` for a file (`"memory"` for `:memory:`). */
  readonly journalMode: string;
  readonly synchronous: "off" | "normal" | "full" | "extra";
  readonly busyTimeoutMs: number;
  readonly foreignKeys: boolean;
}
