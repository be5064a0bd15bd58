/**
 * `nous/sqlite`: the SQLite session store. A separate entry point so that `import … from "nous"`
 * never loads better-sqlite3 (an optional peer dependency).
 *
 * @example
 * import { SqliteStore } from "nous/sqlite";
 * const store = new SqliteStore(); // .nous/sessions.db under the working directory
 */
export { SQLITE_MIGRATIONS, type SqliteMigration } from "./store/sqlite-schema.js";
export { type IntegrityReport, SqliteStore, type SqliteStoreOptions } from "./store/sqlite-store.js";
