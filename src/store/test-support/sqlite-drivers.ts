/**
 * Test support: the SQLite drivers the store's suites run against in this process, and a raw
 * connection on a store file through the same driver (to inspect or damage it behind the store's back).
 */
import {
  SQLITE_DRIVER_NAMES,
  SqliteDatabase,
  type SqliteDriverName,
  type SqliteOpenOptions,
} from "../sqlite-driver.js";
import { availableSqliteDrivers, loadSqliteDriver } from "../sqlite-driver-load.js";

/**
 * Every driver that loads here (better-sqlite3 on Node.js 20; node:sqlite, and better-sqlite3 when
 * built for this Node.js, on 22.13 and later; bun:sqlite and node:sqlite on Bun). NOUS_SQLITE_DRIVERS
 * (a comma-separated list) picks drivers instead; each must load, so a run meant for one driver
 * fails rather than passing without it.
 */
export function sqliteDriversUnderTest(): SqliteDriverName[] {
  const available = availableSqliteDrivers();
  const required = (process.env.NOUS_SQLITE_DRIVERS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of required) {
    if (!SQLITE_DRIVER_NAMES.includes(name as SqliteDriverName)) {
      throw new Error(`NOUS_SQLITE_DRIVERS names "${name}", which is not a SQLite driver`);
    }
    if (!available.includes(name as SqliteDriverName)) {
      loadSqliteDriver(name as SqliteDriverName); // throws SqliteDriverMissingError saying why
    }
  }
  if (required.length > 0) return required as SqliteDriverName[];
  if (available.length === 0) loadSqliteDriver();
  return available;
}

/** A connection on `path` through `driver`, outside any store. */
export function openRawSqlite(driver: SqliteDriverName, path: string, options?: SqliteOpenOptions): SqliteDatabase {
  const loaded = loadSqliteDriver(driver);
  return new SqliteDatabase(loaded.name, loaded.open(path, options));
}

/** Runs `body` on a raw connection to `path`, closing it after. */
export function withRawSqlite<T>(driver: SqliteDriverName, path: string, body: (db: SqliteDatabase) => T): T {
  const db = openRawSqlite(driver, path);
  try {
    return body(db);
  } finally {
    db.close();
  }
}
