/**
 * `nous/sqlite`: the SQLite session store. Its driver is the runtime's own SQLite (`node:sqlite` on
 * Node.js 22.13 and later and Deno, `bun:sqlite` on Bun) or the optional `better-sqlite3` peer
 * (Node.js 20), loaded when the first store opens: importing this entry loads none.
 *
 * @example
 * import { SqliteStore } from "nous/sqlite";
 * const store = new SqliteStore(); // .nous/sessions.db under the working directory
 */

export type { SqliteDriverName } from "./store/sqlite-driver.js";
export { SQLITE_MIGRATIONS, type SqliteMigration } from "./store/sqlite-schema.js";
export { SqliteStore } from "./store/sqlite-store.js";
export type { IntegrityReport, SqliteSettings, SqliteStoreOptions } from "./store/sqlite-store-options.js";
