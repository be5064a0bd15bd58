import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { SqliteDriverMissingError, type SqliteDriverProblem } from "../errors/sqlite-driver-missing-error.js";
import { SQLITE_DRIVER_NAMES, type SqliteDriver, type SqliteDriverName } from "./sqlite-driver.js";
import { availableSqliteDrivers, loadSqliteDriver, type SqliteRuntime } from "./sqlite-driver-load.js";
import { loadNodeSqlite } from "./sqlite-node-driver.js";
import { SqliteStore } from "./sqlite-store.js";
import { runIsolated } from "./test-support/isolated-script.js";
import { openRawSqlite, sqliteDriversUnderTest } from "./test-support/sqlite-drivers.js";

const fakeDriver = (name: SqliteDriverName): SqliteDriver => ({
  name,
  open: () => {
    throw new Error("a fake driver opens nothing");
  },
});
const missing = (driver: SqliteDriverName, reason: string, fix?: "install" | "rebuild"): SqliteDriverProblem => ({
  driver,
  reason,
  ...(fix === undefined ? {} : { fix }),
});

/** A runtime where the named drivers load and the others report `problems[name]` (or a default). */
function runtime(
  description: string,
  loads: readonly SqliteDriverName[],
  problems: Partial<Record<SqliteDriverName, SqliteDriverProblem>> = {},
): SqliteRuntime {
  const loader = (name: SqliteDriverName) => () =>
    loads.includes(name) ? fakeDriver(name) : (problems[name] ?? missing(name, `${name} is not here`));
  return {
    description,
    isBun: description.startsWith("Bun"),
    loaders: {
      "node:sqlite": loader("node:sqlite"),
      "bun:sqlite": loader("bun:sqlite"),
      "better-sqlite3": loader("better-sqlite3"),
    },
  };
}

const nodeTooOld = missing("node:sqlite", "node:sqlite needs Node.js 22.13 or later (this is Node.js 20.19.0)");
const notInstalled = missing("better-sqlite3", "the better-sqlite3 package is not installed", "install");

describe("the SQLite driver is picked by runtime", () => {
  it("node:sqlite where it exists (Node.js 22.13 and later), even with better-sqlite3 installed", () => {
    expect(loadSqliteDriver(undefined, runtime("Node.js 24.1.0", ["node:sqlite", "better-sqlite3"])).name).toBe(
      "node:sqlite",
    );
  });

  it("bun:sqlite on Bun", () => {
    expect(loadSqliteDriver(undefined, runtime("Bun 1.2.0", ["node:sqlite", "bun:sqlite"])).name).toBe("bun:sqlite");
  });

  it("the better-sqlite3 optional peer elsewhere (Node.js 20)", () => {
    const node20 = runtime("Node.js 20.19.0", ["better-sqlite3"], { "node:sqlite": nodeTooOld });
    expect(loadSqliteDriver(undefined, node20).name).toBe("better-sqlite3");
  });

  it("when none is available: one typed error naming the exact install command", () => {
    const bare = runtime("Node.js 20.19.0", [], { "node:sqlite": nodeTooOld, "better-sqlite3": notInstalled });
    const error = catchError(() => loadSqliteDriver(undefined, bare));
    expect(error).toBeInstanceOf(SqliteDriverMissingError);
    expect(error).toMatchObject({
      code: "sqlite_driver_missing",
      fault: "user",
      runtime: "Node.js 20.19.0",
      installCommand: "npm install better-sqlite3",
      problems: [nodeTooOld, notInstalled],
    });
    expect((error as Error).message).toBe(
      "No SQLite driver is available on Node.js 20.19.0: node:sqlite needs Node.js 22.13 or later (this is Node.js 20.19.0); the better-sqlite3 package is not installed. Run: npm install better-sqlite3 (or use Node.js 22.13 or later, or Bun, which have SQLite built in)",
    );
  });

  it("a better-sqlite3 built for another Node.js version: the command is npm rebuild better-sqlite3", () => {
    const broken = missing("better-sqlite3", "the better-sqlite3 package is installed but failed to load", "rebuild");
    const error = catchError(() =>
      loadSqliteDriver(
        undefined,
        runtime("Node.js 20.19.0", [], { "node:sqlite": nodeTooOld, "better-sqlite3": broken }),
      ),
    );
    expect(error).toMatchObject({ installCommand: "npm rebuild better-sqlite3" });
    expect((error as Error).message).toContain("Run: npm rebuild better-sqlite3");
  });

  it("the driver option forces a driver, and one the runtime lacks is a SqliteDriverMissingError saying why", () => {
    const node24 = runtime("Node.js 24.1.0", ["node:sqlite", "better-sqlite3"]);
    expect(loadSqliteDriver("better-sqlite3", node24).name).toBe("better-sqlite3");
    const error = catchError(() => loadSqliteDriver("bun:sqlite", node24));
    expect(error).toMatchObject({ code: "sqlite_driver_missing", requested: "bun:sqlite" });
    expect((error as Error).message).toMatch(/^The SQLite driver "bun:sqlite" \(the driver option\) is not available/);
  });
});

describe("the SQLite driver in this process", () => {
  const expected: SqliteDriverName = process.versions.bun
    ? "bun:sqlite"
    : atLeast(process.versions.node, [22, 13])
      ? "node:sqlite"
      : "better-sqlite3";

  it(`is ${expected} by default on this runtime (node:sqlite from Node.js 22.13, bun:sqlite on Bun, else better-sqlite3)`, async () => {
    const store = new SqliteStore({ path: ":memory:" });
    expect(store.driver).toBe(expected);
    await store.close();
  });

  it("the driver option picks each available driver, and a missing one is a SqliteDriverMissingError", async () => {
    const available = availableSqliteDrivers();
    expect(available).toContain(expected);
    for (const driver of SQLITE_DRIVER_NAMES) {
      if (available.includes(driver)) {
        const store = new SqliteStore({ path: ":memory:", driver });
        expect(store.settings()).toMatchObject({ driver, synchronous: "full" });
        await store.close();
      } else {
        expect(() => new SqliteStore({ path: ":memory:", driver })).toThrow(SqliteDriverMissingError);
      }
    }
  });

  it("with no package installed: no driver loads at import, and the first store gets the runtime's driver or the typed error", () => {
    const script = join(dirname(fileURLToPath(import.meta.url)), "test-support", "sqlite-driver-child.ts");
    const outcome = runIsolated(script);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(outcome.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(report.betterSqliteAtImport).toBe(false);
    if (expected === "better-sqlite3") {
      expect(report.error).toMatchObject({
        name: "SqliteDriverMissingError",
        code: "sqlite_driver_missing",
        installCommand: "npm install better-sqlite3",
      });
      expect(report.error.message).toContain(
        "the better-sqlite3 package is not installed. Run: npm install better-sqlite3",
      );
    } else {
      expect(report).toMatchObject({ driver: expected, events: 1, warnings: [] });
    }
  });
});

const directory = mkdtempSync(join(tmpdir(), "nous-driver-seam-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

for (const driver of sqliteDriversUnderTest()) {
  describe(`the driver seam on ${driver}: one meaning on every driver`, () => {
    const open = (name: string) => openRawSqlite(driver, join(directory, `${driver.replace(":", "-")}-${name}.db`));

    it("rows are objects by column name, integers are numbers, no row is undefined, a write counts its changes", () => {
      const db = open("rows");
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, big INTEGER, text TEXT) STRICT");
      expect(db.prepare("INSERT INTO t VALUES (?, ?, ?)").run(1, 2 ** 40, "a")).toEqual({ changes: 1 });
      expect({ ...db.prepare("SELECT id, big, text FROM t WHERE id = ?").get(1) }).toEqual({
        id: 1,
        big: 2 ** 40,
        text: "a",
      });
      expect(db.prepare("SELECT id FROM t WHERE id = ?").get(2)).toBeUndefined();
      expect(db.prepare("SELECT id FROM t WHERE id > ?").all(5)).toEqual([]);
      expect(db.prepare("UPDATE t SET text = ? WHERE id > ?").run("b", 0)).toEqual({ changes: 1 });
      expect(db.pragma("user_version = 7")).toEqual([]); // a pragma that returns nothing
      expect(db.pragmaValue("user_version")).toBe(7);
      db.close();
    });

    it("a transaction commits what its body did, rolls back when it throws, and does not nest", () => {
      const db = open("transactions");
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
      expect(db.transaction("immediate", () => db.prepare("INSERT INTO t VALUES (?)").run(1).changes)).toBe(1);
      expect(() =>
        db.transaction("immediate", () => {
          db.prepare("INSERT INTO t VALUES (?)").run(2);
          throw new Error("body failed");
        }),
      ).toThrow("body failed");
      expect(() => db.transaction("deferred", () => db.transaction("deferred", () => 1))).toThrow(/do not nest/);
      expect(
        db
          .prepare("SELECT id FROM t ORDER BY id")
          .all()
          .map((row) => row.id),
      ).toEqual([1]);
      expect(db.transaction("deferred", () => db.prepare("SELECT count(*) AS n FROM t").get()?.n)).toBe(1);
      db.close();
    });

    it("mustExist refuses a missing file without creating it; readonly refuses writes", () => {
      const loaded = loadSqliteDriver(driver);
      const absent = join(directory, `${driver.replace(":", "-")}-absent.db`);
      expect(() => loaded.open(absent, { mustExist: true })).toThrow();
      expect(() => openRawSqlite(driver, absent, { readonly: true })).toThrow();
      const db = open("readonly");
      db.exec("CREATE TABLE t (id INTEGER)");
      db.close();
      const reader = openRawSqlite(driver, join(directory, `${driver.replace(":", "-")}-readonly.db`), {
        readonly: true,
      });
      expect(() => reader.exec("INSERT INTO t VALUES (1)")).toThrow();
      reader.close();
      expect(loaded.open(absent).close()).toBeUndefined(); // without mustExist it is created
    });
  });
}

describe("node:sqlite's ExperimentalWarning (Node.js 22 and 23 print it on load)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is not passed on when the driver loads; every other warning still is", async () => {
    const original = process.emitWarning;
    const seen: string[] = [];
    const listener = (warning: Error) => seen.push(warning.message);
    process.on("warning", listener);
    vi.spyOn(process, "getBuiltinModule").mockImplementation(((id: string) => {
      process.emitWarning("SQLite is an experimental feature and might change at any time", "ExperimentalWarning");
      process.emitWarning("Something else is experimental", "ExperimentalWarning");
      return id === "node:sqlite" ? { DatabaseSync: class {} } : undefined;
    }) as typeof process.getBuiltinModule);
    try {
      expect(loadNodeSqlite()).toBeDefined();
      expect(process.emitWarning).toBe(original);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen).toEqual(["Something else is experimental"]);
    } finally {
      process.off("warning", listener);
    }
  });
});

function catchError(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

function atLeast(version: string | undefined, [major, minor]: readonly [number, number]): boolean {
  const [actualMajor = 0, actualMinor = 0] = (version ?? "0.0").split(".").map(Number);
  return actualMajor > major || (actualMajor === major && actualMinor >= minor);
}
