import { createRequire } from "node:module";
import { SqliteDriverMissingError, type SqliteDriverProblem } from "../errors/sqlite-driver-missing-error.js";
import { type BetterSqliteConstructor, betterSqliteDriver } from "./sqlite-better-driver.js";
import { type BunSqliteModule, bunSqliteDriver } from "./sqlite-bun-driver.js";
import type { SqliteDriver, SqliteDriverName } from "./sqlite-driver.js";
import { loadNodeSqlite, nodeSqliteDriver } from "./sqlite-node-driver.js";

/** Loads one driver: the driver, or why it cannot be used here. */
export type SqliteDriverLoader = () => SqliteDriver | SqliteDriverProblem;

/** What driver selection needs to know about the running process. */
export interface SqliteRuntime {
  /** "Bun 1.2.3", "Node.js 20.19.0", "Deno 2.2.0". */
  readonly description: string;
  readonly isBun: boolean;
  readonly loaders: Readonly<Record<SqliteDriverName, SqliteDriverLoader>>;
}

const require = createRequire(import.meta.url);
const loaded = new Map<SqliteDriverName, SqliteDriver | SqliteDriverProblem>();

/** The running process: its runtime and the real loaders (each tried once, then remembered). */
export function currentSqliteRuntime(): SqliteRuntime {
  const versions = process.versions as NodeJS.ProcessVersions & { bun?: string; deno?: string };
  const description =
    versions.bun !== undefined
      ? `Bun ${versions.bun}`
      : versions.deno !== undefined
        ? `Deno ${versions.deno}`
        : `Node.js ${versions.node}`;
  const once =
    (name: SqliteDriverName, load: () => SqliteDriver | SqliteDriverProblem): SqliteDriverLoader =>
    () => {
      let result = loaded.get(name);
      if (result === undefined) {
        result = load();
        loaded.set(name, result);
      }
      return result;
    };
  return {
    description,
    isBun: versions.bun !== undefined,
    loaders: {
      "node:sqlite": once("node:sqlite", () => loadNode(description)),
      "bun:sqlite": once("bun:sqlite", () => loadBun(versions.bun !== undefined)),
      "better-sqlite3": once("better-sqlite3", loadBetterSqlite),
    },
  };
}

/**
 * The SQLite driver to use: `requested` when given (or a `SqliteDriverMissingError` saying why it
 * cannot be used here), else the first that loads of `bun:sqlite` (on Bun), `node:sqlite` (Node.js
 * 22.13 and later, Deno), `better-sqlite3` (the optional peer; Node.js 20). No driver module loads
 * before this is called: `import "nous/sqlite"` loads none.
 *
 * @example
 * loadSqliteDriver().name;                  // "node:sqlite" on Node.js 24
 * loadSqliteDriver("better-sqlite3").name;  // or SqliteDriverMissingError: npm install better-sqlite3
 */
export function loadSqliteDriver(requested?: SqliteDriverName, runtime = currentSqliteRuntime()): SqliteDriver {
  const order: readonly SqliteDriverName[] =
    requested !== undefined
      ? [requested]
      : runtime.isBun
        ? ["bun:sqlite", "node:sqlite", "better-sqlite3"]
        : ["node:sqlite", "better-sqlite3"];
  const problems: SqliteDriverProblem[] = [];
  for (const name of order) {
    const result = runtime.loaders[name]();
    if ("open" in result) return result;
    problems.push(result);
  }
  throw new SqliteDriverMissingError({ runtime: runtime.description, requested, problems });
}

/**
 * The drivers that load in this process (tests run the store's suites against each).
 *
 * @example
 * availableSqliteDrivers(); // ["better-sqlite3"] on Node.js 20, ["node:sqlite", …] on Node.js 24
 */
export function availableSqliteDrivers(runtime = currentSqliteRuntime()): SqliteDriverName[] {
  return (["node:sqlite", "bun:sqlite", "better-sqlite3"] as const).filter((name) => "open" in runtime.loaders[name]());
}

function loadNode(runtime: string): SqliteDriver | SqliteDriverProblem {
  try {
    const module = loadNodeSqlite() ?? requireNodeSqlite();
    if (module !== undefined) return nodeSqliteDriver(module);
  } catch (error) {
    return { driver: "node:sqlite", reason: `node:sqlite failed to load: ${message(error)}` };
  }
  return { driver: "node:sqlite", reason: `node:sqlite needs Node.js 22.13 or later (this is ${runtime})` };
}

/** Where `process.getBuiltinModule` is missing (older Deno), `require` still reaches built-ins. */
function requireNodeSqlite(): Parameters<typeof nodeSqliteDriver>[0] | undefined {
  if (typeof process.getBuiltinModule === "function") return undefined;
  try {
    return require("node:sqlite");
  } catch {
    return undefined;
  }
}

function loadBun(isBun: boolean): SqliteDriver | SqliteDriverProblem {
  if (!isBun) return { driver: "bun:sqlite", reason: "bun:sqlite exists only on Bun" };
  try {
    return bunSqliteDriver(require("bun:sqlite") as BunSqliteModule);
  } catch (error) {
    return { driver: "bun:sqlite", reason: `bun:sqlite failed to load: ${message(error)}` };
  }
}

function loadBetterSqlite(): SqliteDriver | SqliteDriverProblem {
  try {
    require.resolve("better-sqlite3");
  } catch {
    return { driver: "better-sqlite3", reason: "the better-sqlite3 package is not installed", fix: "install" };
  }
  try {
    const driver = betterSqliteDriver(require("better-sqlite3") as BetterSqliteConstructor);
    driver.open(":memory:").close(); // the native addon loads on first open
    return driver;
  } catch (error) {
    // Installed but unusable: built for another Node.js version (NODE_MODULE_VERSION), or never built.
    return {
      driver: "better-sqlite3",
      reason: `the better-sqlite3 package is installed but failed to load: ${firstLine(message(error))}`,
      fix: "rebuild",
    };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
