import type { Database, Statement } from "better-sqlite3";
import type { SqliteConnection, SqliteDriver, SqliteStatement, SqliteValue } from "./sqlite-driver.js";

/** The `better-sqlite3` constructor (its CommonJS export). */
export type BetterSqliteConstructor = new (
  path: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => Database;

/**
 * The `better-sqlite3` adapter: the optional peer package, a native build for the running Node.js.
 * Integers come back as numbers (its `safeIntegers` is off by default).
 */
export function betterSqliteDriver(Database: BetterSqliteConstructor): SqliteDriver {
  return {
    name: "better-sqlite3",
    open(path, options = {}): SqliteConnection {
      const db = new Database(path, { readonly: options.readonly === true, fileMustExist: options.mustExist === true });
      return {
        prepare: (sql) => adapt(db.prepare(sql)),
        exec: (sql) => {
          db.exec(sql);
        },
        close: () => {
          db.close();
        },
      };
    },
  };
}

/** better-sqlite3 refuses `get`/`all` on a statement that returns no data (`PRAGMA user_version = 3`); the others return nothing. */
function adapt(statement: Statement): SqliteStatement {
  return {
    run: (...parameters) => ({ changes: statement.run(...parameters).changes }),
    get: <Row>(...parameters: readonly SqliteValue[]) => {
      if (statement.reader) return statement.get(...parameters) as Row | undefined;
      statement.run(...parameters);
      return undefined;
    },
    all: <Row>(...parameters: readonly SqliteValue[]) => {
      if (statement.reader) return statement.all(...parameters) as Row[];
      statement.run(...parameters);
      return [];
    },
    values: (...parameters) => {
      if (!statement.reader) {
        statement.run(...parameters);
        return [];
      }
      // Raw mode belongs to the statement, which `all` shares: on for this call only.
      statement.raw(true);
      try {
        return statement.all(...parameters) as unknown[][];
      } finally {
        statement.raw(false);
      }
    },
  };
}
