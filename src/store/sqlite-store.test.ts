import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionConflictError, StoreError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "./session-store.js";
import type { SqliteDriverName } from "./sqlite-driver.js";
import { SQLITE_MIGRATIONS } from "./sqlite-schema.js";
import { SqliteStore } from "./sqlite-store.js";
import { spawnStoreOpeners } from "./test-support/sqlite-create-race.js";
import { openRawSqlite, sqliteDriversUnderTest, withRawSqlite } from "./test-support/sqlite-drivers.js";
import { describeStoreConformance } from "./test-support/store-conformance.js";

const directory = mkdtempSync(join(tmpdir(), "nous-sqlite-"));
let files = 0;
const nextPath = () => join(directory, `store-${++files}.db`);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const event = (seq: number, data: unknown = { seq }): SessionEvent =>
  ({ seq, at: "2025-01-01T00:00:00.000Z", type: "note", data }) as SessionEvent;

for (const driver of sqliteDriversUnderTest()) {
  const reopen = (store: SessionStore) => new SqliteStore({ path: (store as SqliteStore).path, driver });
  describeStoreConformance({
    name: `sqlite on ${driver}`,
    createStore: () => new SqliteStore({ path: nextPath(), driver }),
    reopen,
  });
  describeStoreConformance({
    name: `sqlite on ${driver} (group commit)`,
    createStore: () => new SqliteStore({ path: nextPath(), groupCommit: true, driver }),
    reopen,
  });
  describeStore(driver);
}

function describeStore(driver: SqliteDriverName): void {
  describe(`SqliteStore on ${driver}`, () => {
    const SqliteStore = storeOn(driver);

    it("creates the file, its directory and the schema on open, in WAL mode with synchronous=FULL", async () => {
      const path = join(directory, driver, "nested", "deeper", "sessions.db");
      const store = new SqliteStore({ path });
      expect(store.driver).toBe(driver);
      expect(store.settings()).toMatchObject({
        driver,
        journalMode: "wal",
        synchronous: "full",
        busyTimeoutMs: 5000,
        foreignKeys: true,
      });
      await store.append("s1", [event(1)], { expectedLastSeq: 0 });
      await store.close();
      expect(existsSync(path)).toBe(true);
      const db = openRawSqlite(driver, path, { readonly: true });
      expect(db.pragmaValue("journal_mode")).toBe("wal");
      expect(db.pragmaValue("user_version")).toBe(SQLITE_MIGRATIONS.at(-1)?.version);
      db.close();
    });

    it("applies the durability options: synchronous NORMAL and the busy timeout when asked", async () => {
      const store = new SqliteStore({ path: nextPath(), synchronous: "normal", busyTimeoutMs: 250 });
      expect(store.settings()).toMatchObject({ journalMode: "wal", synchronous: "normal", busyTimeoutMs: 250 });
      await store.close();
    });

    it("returns seqs, times and lease tokens as numbers, never bigints", async () => {
      const store = new SqliteStore({ path: nextPath() });
      const lease = await store.acquireLease("s", { owner: "run", ttlMs: 60_000 });
      await store.append("s", [event(1), event(2)], { expectedLastSeq: 0, fence: lease.token });
      expect((await store.read("s")).map((stored) => typeof stored.seq)).toEqual(["number", "number"]);
      expect(typeof (await store.lastSeq("s"))).toBe("number");
      expect(typeof lease.token).toBe("number");
      const summary = await store.get("s");
      expect(typeof summary?.lastSeq).toBe("number");
      expect(typeof summary?.createdAt).toBe("string");
      await store.close();
    });

    it("creates a new file atomically: processes racing to open it all get the same complete store", async () => {
      const path = join(directory, `race-${driver.replace(":", "-")}`, "sessions.db");
      const outcomes = await spawnStoreOpeners(driver, path, 4);
      expect(outcomes.map((outcome) => outcome.code)).toEqual([0, 0, 0, 0]);
      const store = new SqliteStore({ path });
      expect((await store.list()).sessions.map((session) => session.sessionId).sort()).toEqual([
        "p0",
        "p1",
        "p2",
        "p3",
      ]);
      expect(await store.verify()).toMatchObject({ ok: true, checkedSessions: 4 });
      await store.close();
    });

    it("defaults to .nous/sessions.db under the working directory", async () => {
      const cwd = process.cwd();
      const work = join(directory, `default-cwd-${driver.replace(":", "-")}`);
      rmSync(work, { recursive: true, force: true });
      await import("node:fs").then((fs) => fs.mkdirSync(work));
      process.chdir(work);
      try {
        const store = new SqliteStore();
        expect(store.path).toBe(join(work, ".nous", "sessions.db"));
        await store.close();
        expect(existsSync(join(work, ".nous", "sessions.db"))).toBe(true);
      } finally {
        process.chdir(cwd);
      }
    });

    it("keeps acknowledged events across close and reopen, and reopening does not migrate twice", async () => {
      const path = nextPath();
      const first = new SqliteStore({ path, groupCommit: true });
      await Promise.all([1, 2, 3].map((n) => first.append(`s${n}`, [event(1), event(2)], { expectedLastSeq: 0 })));
      await first.close();
      const second = new SqliteStore({ path });
      expect(await second.read("s2")).toHaveLength(2);
      expect((await second.list()).sessions).toHaveLength(3);
      expect(second.integrityCheck()).toEqual({ ok: true, messages: ["ok"] });
      await second.close();
    });

    it("serializes writers across two connections to one file: one of two racing appends wins", async () => {
      const path = nextPath();
      const left = new SqliteStore({ path });
      const right = new SqliteStore({ path });
      await left.append("shared", [event(1)], { expectedLastSeq: 0 });
      const results = await Promise.allSettled([
        left.append("shared", [event(2, "left"), event(3, "left")], { expectedLastSeq: 1 }),
        right.append("shared", [event(2, "right")], { expectedLastSeq: 1 }),
      ]);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((result) => result.status === "rejected");
      expect(rejected?.status === "rejected" && rejected.reason).toBeInstanceOf(SessionConflictError);
      expect(await right.lastSeq("shared")).toBe(await left.lastSeq("shared"));
      await left.close();
      await right.close();
    });

    it("wraps driver failures in StoreError, and names a file that is not a database", () => {
      const path = join(directory, `not-a-database-${driver.replace(":", "-")}.db`);
      writeFileSync(path, "this is not an sqlite file, just text that is long enough to have a header".repeat(20));
      expect(() => new SqliteStore({ path })).toThrow(StoreError);
      try {
        new SqliteStore({ path });
      } catch (error) {
        expect(error).toMatchObject({
          code: "store_unrecognized",
          fault: "store",
          backend: "sqlite",
          operation: "open",
        });
      }
      const folder = join(directory, `a-directory-${driver.replace(":", "-")}.db`);
      mkdirSync(folder);
      try {
        new SqliteStore({ path: folder });
        expect.unreachable();
      } catch (error) {
        expect(error).toMatchObject({ code: "store_failure", fault: "store", backend: "sqlite", operation: "open" });
      }
    });

    it("refuses a file written by a newer schema version", () => {
      const path = nextPath();
      withRawSqlite(driver, path, (db) => db.pragma("user_version = 99"));
      expect(() => new SqliteStore({ path })).toThrow(/schema version 99/);
    });

    it("times leases by the store's clock", async () => {
      let now = Date.parse("2030-01-01T00:00:00.000Z");
      const store = new SqliteStore({ path: nextPath(), now: () => now });
      const lease = await store.acquireLease("s", { owner: "run-a", ttlMs: 1000 });
      expect(lease.expiresAt).toBe("2030-01-01T00:00:01.000Z");
      now += 999;
      await expect(store.acquireLease("s", { owner: "run-b", ttlMs: 1000 })).rejects.toBeInstanceOf(
        SessionConflictError,
      );
      now += 1;
      expect((await store.acquireLease("s", { owner: "run-b", ttlMs: 1000 })).token).toBe(lease.token + 1);
      await store.close();
    });

    it("migrates a schema version 1 file: its sessions are kept, a running one reads as interrupted and can be leased", async () => {
      const path = nextPath();
      withRawSqlite(driver, path, (db) => {
        const [first] = SQLITE_MIGRATIONS;
        db.exec(first?.sql ?? "");
        db.pragma("user_version = 1");
        db.prepare(
          "INSERT INTO sessions (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text) VALUES ('old', 1, 1, 1, 'running', 'running', NULL, NULL, '[]', 'old')",
        ).run();
        db.prepare(
          `INSERT INTO events (session_id, seq, at, type, run_id, data) VALUES ('old', 1, '2025-01-01T00:00:00.000Z', 'run_started', NULL, '{"runId":"r"}')`,
        ).run();
      });
      const store = new SqliteStore({ path });
      expect(await store.get("old")).toMatchObject({ status: "interrupted", lastSeq: 1 });
      const lease = await store.acquireLease("old", { owner: "resumer", ttlMs: 60_000 });
      expect(await store.get("old")).toMatchObject({ status: "running" });
      await store.append("old", [event(2)], { expectedLastSeq: 1, fence: lease.token });
      await store.close();
      expect(withRawSqlite(driver, path, (db) => db.pragmaValue("user_version"))).toBe(
        SQLITE_MIGRATIONS.at(-1)?.version,
      );
    });
  });
}

/** `SqliteStore` with `driver` as its default driver. */
function storeOn(
  driver: SqliteDriverName,
): new (
  options?: ConstructorParameters<typeof SqliteStore>[0],
) => SqliteStore {
  return class extends SqliteStore {
    constructor(options: ConstructorParameters<typeof SqliteStore>[0] = {}) {
      super({ driver, ...options });
    }
  };
}
