import type { SqliteConnection, SqliteDriver, SqliteRow, SqliteStatement, SqliteValue } from "./sqlite-driver.js";

/** The part of `bun:sqlite` the adapter uses (declared here: the package's types are Bun's). */
export interface BunSqliteModule {
  readonly Database: new (
    path: string,
    options?: { readonly?: boolean; readwrite?: boolean; create?: boolean; strict?: boolean },
  ) => BunDatabase;
}

interface BunDatabase {
  prepare(sql: string): BunStatement;
  exec(sql: string): void;
  close(throwOnError?: boolean): void;
}

interface BunStatement {
  run(...parameters: SqliteValue[]): { changes: number };
  get(...parameters: SqliteValue[]): SqliteRow | null;
  all(...parameters: SqliteValue[]): SqliteRow[];
  values(...parameters: SqliteValue[]): unknown[][];
  finalize(): void;
}

/**
 * The `bun:sqlite` adapter (Bun's built-in SQLite). Its `get` returns `null` for no row, turned
 * into `undefined` here; integers come back as numbers (`safeIntegers` is off by default). The
 * statements a connection prepared are finalized when it closes, so closing the last connection
 * checkpoints the WAL as on the other drivers.
 */
export function bunSqliteDriver(module: BunSqliteModule): SqliteDriver {
  return {
    name: "bun:sqlite",
    open(path, options = {}): SqliteConnection {
      const db = options.readonly
        ? new module.Database(path, { readonly: true })
        : new module.Database(path, { readwrite: true, create: options.mustExist !== true });
      const prepared = new Set<BunStatement>();
      return {
        prepare: (sql) => {
          const statement = db.prepare(sql);
          prepared.add(statement);
          return adapt(statement);
        },
        exec: (sql) => db.exec(sql),
        close: () => {
          for (const statement of prepared) statement.finalize();
          prepared.clear();
          db.close();
        },
      };
    },
  };
}

function adapt(statement: BunStatement): SqliteStatement {
  return {
    run: (...parameters) => ({ changes: statement.run(...parameters).changes }),
    get: <Row>(...parameters: readonly SqliteValue[]) => (statement.get(...parameters) ?? undefined) as Row | undefined,
    all: <Row>(...parameters: readonly SqliteValue[]) => statement.all(...parameters) as Row[],
    values: (...parameters) => statement.values(...parameters),
  };
}
