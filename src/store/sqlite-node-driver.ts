import { existsSync } from "node:fs";
import type { SqliteConnection, SqliteDriver, SqliteRow, SqliteStatement, SqliteValue } from "./sqlite-driver.js";

/** The part of `node:sqlite` the adapter uses (declared here: `@types/node` 20 does not describe it). */
interface NodeSqliteModule {
  readonly DatabaseSync: new (
    path: string,
    options?: { readOnly?: boolean; enableForeignKeyConstraints?: boolean },
  ) => NodeDatabase;
}

interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

interface NodeStatement {
  run(...parameters: SqliteValue[]): { changes: number | bigint };
  get(...parameters: SqliteValue[]): SqliteRow | undefined;
  all(...parameters: SqliteValue[]): SqliteRow[];
  /** Node.js 22.16 / 24 and later: rows as arrays. */
  setReturnArrays?(enabled: boolean): void;
}

/**
 * Loads `node:sqlite` (Node.js 22.13 and later, unflagged; Deno; Bun) or returns `undefined` where
 * the runtime has no such module. Node.js 22 and 23 print "ExperimentalWarning: SQLite is an
 * experimental feature" when the module first loads; that one warning is not passed on (every other
 * warning is), since a store a user did not choose should not alarm them. It is emitted
 * synchronously during the load, so the filter is in place only for that call.
 */
export function loadNodeSqlite(): NodeSqliteModule | undefined {
  const original = process.emitWarning;
  process.emitWarning = function filtered(this: NodeJS.Process, ...args: Parameters<typeof process.emitWarning>) {
    if (isSqliteExperimentalWarning(args)) return;
    return Reflect.apply(original, this, args);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule?.("node:sqlite") as NodeSqliteModule | undefined;
  } finally {
    process.emitWarning = original;
  }
}

function isSqliteExperimentalWarning(args: readonly unknown[]): boolean {
  const [warning, typeOrOptions] = args;
  const type =
    typeof typeOrOptions === "string" ? typeOrOptions : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = typeof warning === "string" ? warning : (warning as { message?: unknown } | undefined)?.message;
  const name = (warning as { name?: unknown } | undefined)?.name;
  return (type === "ExperimentalWarning" || name === "ExperimentalWarning") && /^SQLite\b/.test(String(message));
}

/**
 * The `node:sqlite` adapter. `DatabaseSync` returns integers as numbers (`readBigInts` is off by
 * default) and rows as null-prototype objects. It has no "file must exist" flag (URI filenames are
 * not enabled on every version), so `mustExist` is checked just before opening.
 */
export function nodeSqliteDriver(module: NodeSqliteModule): SqliteDriver {
  return {
    name: "node:sqlite",
    open(path, options = {}): SqliteConnection {
      if (options.mustExist && !existsSync(path))
        throw new Error(`unable to open database file: ${path} does not exist`);
      const db = new module.DatabaseSync(path, {
        readOnly: options.readonly === true,
        enableForeignKeyConstraints: true,
      });
      return {
        prepare: (sql) => adapt(db.prepare(sql)),
        exec: (sql) => db.exec(sql),
        close: () => db.close(),
      };
    },
  };
}

function adapt(statement: NodeStatement): SqliteStatement {
  return {
    run: (...parameters) => ({ changes: Number(statement.run(...parameters).changes) }),
    get: <Row>(...parameters: readonly SqliteValue[]) => statement.get(...parameters) as Row | undefined,
    all: <Row>(...parameters: readonly SqliteValue[]) => statement.all(...parameters) as Row[],
    values: (...parameters) => {
      if (statement.setReturnArrays === undefined) return statement.all(...parameters).map((row) => Object.values(row));
      statement.setReturnArrays(true);
      try {
        return statement.all(...parameters) as unknown as unknown[][];
      } finally {
        statement.setReturnArrays(false);
      }
    },
  };
}
