import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { StoreError, UnrecognizedStoreError } from "../errors/store-errors.js";
import { SqliteDatabase, type SqliteDriver } from "./sqlite-driver.js";
import { migrateSqlite, SQLITE_MIGRATIONS } from "./sqlite-schema.js";
import type { SqliteSettings } from "./sqlite-store-options.js";

/** How `openSqliteDatabase` configures the connection. */
export interface SqliteConnectionOptions {
  readonly busyTimeoutMs: number;
  readonly synchronous: "full" | "normal";
  /** The SQLite library to open it with (`loadSqliteDriver`). */
  readonly driver: SqliteDriver;
}

const HEADER = Buffer.from("SQLite format 3\u0000", "latin1");

/**
 * Opens (or creates) a store file and brings its schema up to date. A file that did not exist is
 * built under a temporary name and linked into place complete, so no process ever sees a
 * half-created store; an existing file must be a Nous store (or an empty SQLite database, which
 * holds nothing to lose): a 0-byte file, a non-SQLite file or another application's database is
 * refused with `UnrecognizedStoreError`, never re-initialised. The same settings on every driver:
 * WAL, `synchronous` FULL unless asked otherwise, the busy timeout, foreign keys on.
 */
export function openSqliteDatabase(path: string, options: SqliteConnectionOptions): SqliteDatabase {
  const { driver } = options;
  if (path === ":memory:") {
    const db = new SqliteDatabase(driver.name, driver.open(path));
    configure(db, options);
    migrateSqlite(db);
    return db;
  }
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) createStoreFile(path, driver);
  checkHeader(path);
  const db = new SqliteDatabase(driver.name, driver.open(path, { mustExist: true }));
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    checkSchema(db, path);
    configure(db, options);
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function configure(db: SqliteDatabase, options: Omit<SqliteConnectionOptions, "driver">): void {
  db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
  db.pragma("foreign_keys = ON");
}

/** Builds the schema in a private file, then links it to `path` unless another process got there first. */
function createStoreFile(path: string, driver: SqliteDriver): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.new`);
  try {
    const db = new SqliteDatabase(driver.name, driver.open(temporary));
    try {
      configure(db, { busyTimeoutMs: 0, synchronous: "full" });
      migrateSqlite(db);
    } finally {
      db.close(); // checkpoints the WAL into the file and removes it
    }
    if (existsSync(`${temporary}-wal`)) throw new Error("the new store file's WAL was not checkpointed on close");
    const handle = openSync(temporary, "r");
    try {
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      if (code(error) === "EEXIST") return;
      // A file system without hard links: copy, still never over an existing file.
      try {
        copyFileSync(temporary, path, constants.COPYFILE_EXCL);
      } catch (copyError) {
        if (code(copyError) !== "EEXIST") throw copyError;
      }
    }
    syncDirectory(dirname(path));
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${temporary}${suffix}`, { force: true });
  }
}

function syncDirectory(directory: string): void {
  try {
    const handle = openSync(directory, "r");
    try {
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
  } catch {
    // Not every platform can fsync a directory (Windows); the file itself is synced.
  }
}

function checkHeader(path: string): void {
  const header = Buffer.alloc(HEADER.length);
  const handle = openSync(path, "r");
  let read: number;
  try {
    read = readSync(handle, header, 0, header.length, 0);
  } finally {
    closeSync(handle);
  }
  if (read === 0) {
    throw new UnrecognizedStoreError({
      backend: "sqlite",
      location: path,
      reason: "empty_file",
      detail:
        "the file is empty (0 bytes), so every session it held is gone (a truncated copy, a failed restore or a full disk?). Restore it from a backup, or delete it to start a new, empty store",
    });
  }
  if (read < HEADER.length || !header.equals(HEADER)) {
    throw new UnrecognizedStoreError({
      backend: "sqlite",
      location: path,
      reason: "not_sqlite",
      detail: "the file is not an SQLite database. Check the path (--store / NOUS_STORE), or move the file away",
    });
  }
}

function checkSchema(db: SqliteDatabase, path: string): void {
  const version = db.pragmaValue("user_version") as number;
  const latest = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;
  if (version > latest) {
    throw new StoreError({
      backend: "sqlite",
      operation: "open",
      cause: new Error(`the database is at schema version ${version}; this release knows up to ${latest}`),
    });
  }
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name as string);
  if (version === 0 && tables.length > 0) {
    throw new UnrecognizedStoreError({
      backend: "sqlite",
      location: path,
      reason: "foreign_schema",
      detail: `it is an SQLite database of another application (tables ${tables.join(", ")}; no Nous schema version). Nous does not write into it: choose another path (--store / NOUS_STORE)`,
    });
  }
  const missing = ["events", "sessions"].filter((name) => !tables.includes(name));
  if (version > 0 && missing.length > 0) {
    throw new UnrecognizedStoreError({
      backend: "sqlite",
      location: path,
      reason: "missing_tables",
      detail: `it records Nous schema version ${version} but has no ${missing.join(" or ")} table. Restore it from a backup`,
    });
  }
}

function code(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** `PRAGMA integrity_check` over the whole file: `["ok"]` when healthy. */
export function integrityCheck(db: SqliteDatabase): { ok: boolean; messages: string[] } {
  const rows = db.pragma("integrity_check") as unknown as { integrity_check: string }[];
  const messages = rows.map((row) => row.integrity_check);
  return { ok: messages.length === 1 && messages[0] === "ok", messages };
}

/** `integrity_check` plus `foreign_key_check` (events whose session row is gone). */
export function checkSqliteStorage(db: SqliteDatabase): { ok: boolean; messages: string[] } {
  const integrity = integrityCheck(db);
  const orphans = db.pragma("foreign_key_check") as unknown as { table: string; rowid: number }[];
  const messages = [
    ...(integrity.ok ? [] : integrity.messages),
    ...orphans.map((row) => `${row.table} row ${row.rowid} belongs to no session (foreign_key_check)`),
  ];
  return messages.length === 0 ? { ok: true, messages: ["ok"] } : { ok: false, messages };
}

const SYNCHRONOUS = ["off", "normal", "full", "extra"] as const;

/** The connection's durability settings, as SQLite reports them. */
export function readSqliteSettings(db: SqliteDatabase): SqliteSettings {
  return {
    driver: db.driver,
    sqliteVersion: String(db.prepare("SELECT sqlite_version() AS version").get()?.version),
    journalMode: String(db.pragmaValue("journal_mode")),
    synchronous: SYNCHRONOUS[Number(db.pragmaValue("synchronous"))] ?? "full",
    busyTimeoutMs: Number(db.pragmaValue("busy_timeout")),
    foreignKeys: Number(db.pragmaValue("foreign_keys")) === 1,
  };
}
