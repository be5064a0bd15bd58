/**
 * The seam between the SQLite store and the SQLite library it runs on. Each runtime has its own:
 * `node:sqlite` (Node.js 22.13 and later, Deno), `bun:sqlite` (Bun) and the `better-sqlite3`
 * package (any Node.js, a native build). An adapter offers only what the store uses, with one
 * meaning on every driver: positional `?` parameters, rows as objects keyed by column name,
 * integers as JavaScript numbers, `undefined` (not `null`) for no row.
 */

/** The SQLite libraries the store runs on. */
export type SqliteDriverName = "node:sqlite" | "bun:sqlite" | "better-sqlite3";

/** Every driver name, in no particular order of preference. */
export const SQLITE_DRIVER_NAMES: readonly SqliteDriverName[] = Object.freeze([
  "node:sqlite",
  "bun:sqlite",
  "better-sqlite3",
]);

/** A value bound to a `?` parameter. */
export type SqliteValue = string | number | bigint | null | Uint8Array;

/** A result row, keyed by column name (or `AS` alias). */
export type SqliteRow = Readonly<Record<string, unknown>>;

/**
 * A prepared statement; reusable, run with positional parameters. `Row` names the shape the
 * caller's SQL selects (unchecked, as any driver's rows are).
 */
export interface SqliteStatement {
  /** Runs a statement that returns no rows; `changes` counts the rows it wrote. */
  run(...parameters: readonly SqliteValue[]): { readonly changes: number };
  /** The first row, or `undefined` when there is none. */
  get<Row extends object = SqliteRow>(...parameters: readonly SqliteValue[]): Row | undefined;
  /** Every row. */
  all<Row extends object = SqliteRow>(...parameters: readonly SqliteValue[]): Row[];
  /**
   * Every row as an array of its values in the order the SQL selects them: cheaper than `all` for
   * many rows (no object keyed by column name is built per row).
   */
  values(...parameters: readonly SqliteValue[]): unknown[][];
}

/** One open connection, as an adapter gives it. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements that return no rows. */
  exec(sql: string): void;
  /** Closes the connection; the last connection to a WAL file checkpoints it. */
  close(): void;
}

/** How a connection is opened. */
export interface SqliteOpenOptions {
  /** Fail rather than create the file when it does not exist (default false). */
  readonly mustExist?: boolean;
  /** Open read-only (default false). */
  readonly readonly?: boolean;
}

/** A SQLite library, adapted: opens connections. */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  open(path: string, options?: SqliteOpenOptions): SqliteConnection;
}

/**
 * A connection with what the store builds on it, the same on every driver: prepared statements
 * cached by their SQL, pragmas, and transactions written as `BEGIN [IMMEDIATE]` … `COMMIT` (rolled
 * back when the body throws).
 *
 * @example
 * const db = new SqliteDatabase(driver, driver.open("sessions.db"));
 * const version = db.pragmaValue("user_version");
 * db.transaction("immediate", () => db.prepare("DELETE FROM events").run());
 */
export class SqliteDatabase {
  readonly driver: SqliteDriverName;
  readonly #connection: SqliteConnection;
  readonly #statements = new Map<string, SqliteStatement>();
  #inTransaction = false;

  constructor(driver: SqliteDriverName, connection: SqliteConnection) {
    this.driver = driver;
    this.#connection = connection;
  }

  /** The prepared statement for `sql`, prepared once per connection and reused. */
  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#connection.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    this.#connection.exec(sql);
  }

  /** The rows of `PRAGMA <text>` (`pragma("integrity_check")`, `pragma("journal_mode = WAL")`). */
  pragma(text: string): SqliteRow[] {
    return this.prepare(`PRAGMA ${text}`).all();
  }

  /** The first column of the first row of `PRAGMA <text>` (`pragmaValue("user_version")` → 3). */
  pragmaValue(text: string): unknown {
    const row = this.prepare(`PRAGMA ${text}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  /**
   * Runs `body` in one transaction and returns what it returns. `"immediate"` takes the write lock
   * at the start (waiting up to the busy timeout), so a read-then-write body cannot be overtaken by
   * another connection; `"deferred"` (a read) takes locks as it goes. A body that throws rolls the
   * transaction back and the error propagates. Transactions do not nest.
   */
  transaction<T>(mode: "immediate" | "deferred", body: () => T): T {
    if (this.#inTransaction) throw new Error("SqliteDatabase.transaction: transactions do not nest");
    this.#connection.exec(mode === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN");
    this.#inTransaction = true;
    try {
      const result = body();
      this.#connection.exec("COMMIT");
      return result;
    } catch (error) {
      try {
        this.#connection.exec("ROLLBACK");
      } catch {
        // SQLite already rolled back (a failed COMMIT, SQLITE_FULL, an I/O error): nothing is open.
      }
      throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  close(): void {
    this.#statements.clear();
    this.#connection.close();
  }
}
