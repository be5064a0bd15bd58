import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EventCorruptedError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { SqliteDatabase, SqliteDriverName } from "./sqlite-driver.js";
import { SQLITE_MIGRATIONS } from "./sqlite-schema.js";
import { SqliteStore as AnySqliteStore } from "./sqlite-store.js";
import type { SqliteStoreOptions } from "./sqlite-store-options.js";
import { paymentSession, replaceBytesInFile } from "./test-support/damage.js";
import { openRawSqlite, sqliteDriversUnderTest, withRawSqlite } from "./test-support/sqlite-drivers.js";

const directory = mkdtempSync(join(tmpdir(), "nous-sqlite-integrity-"));
let files = 0;
const nextPath = () => join(directory, `store-${++files}.db`);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const events = () => paymentSession() as unknown as SessionEvent[];

function describeIntegrity(driver: SqliteDriverName): void {
  /** The store on the driver under test. */
  class SqliteStore extends AnySqliteStore {
    constructor(options: SqliteStoreOptions) {
      super({ driver, ...options });
    }
  }

  /** A closed store file (WAL checkpointed into the main file) holding the payment session as "s1". */
  async function storeWithPayment(): Promise<string> {
    const path = nextPath();
    const store = new SqliteStore({ path });
    await store.append("s1", events(), { expectedLastSeq: 0 });
    await store.append("other", events().slice(0, 2), { expectedLastSeq: 0 });
    await store.close();
    return path;
  }

  function withDatabase(path: string, body: (db: SqliteDatabase) => void): void {
    withRawSqlite(driver, path, body);
  }

  describe(`SqliteStore on ${driver}: a damaged event is a typed error naming the session and seq`, () => {
    it("one flipped byte that breaks an event's JSON on disk", async () => {
      const path = await storeWithPayment();
      replaceBytesInFile(path, '"amount":1000', '"amount";1000');
      const store = new SqliteStore({ path });
      const failure = store.read("s1");
      await expect(failure).rejects.toMatchObject({ code: "event_corrupted", fault: "store", sessionId: "s1", seq: 3 });
      await expect(failure).rejects.toThrow(/session "s1".*seq 3/i);
      expect(await store.read("other")).toHaveLength(2); // the rest of the store still reads
      const report = await store.verify();
      expect(report).toMatchObject({ ok: false, checkedSessions: 2, damagedSessions: 1, storage: { ok: true } });
      expect(report.sessions.find((session) => session.sessionId === "s1")).toMatchObject({
        status: "damaged",
        seq: 3,
        damage: "invalid_json",
        events: 2,
      });
      expect(report.sessions.find((session) => session.sessionId === "other")).toEqual({
        status: "ok",
        sessionId: "other",
        events: 2,
      });
      await store.close();
    });

    it("one changed digit inside event data (still valid JSON)", async () => {
      const path = await storeWithPayment();
      replaceBytesInFile(path, '"amount":1000', '"amount":1900');
      const store = new SqliteStore({ path });
      await expect(store.read("s1")).rejects.toMatchObject({
        code: "event_corrupted",
        sessionId: "s1",
        seq: 3,
        damage: "checksum_mismatch",
      });
      await store.close();
    });

    it("a changed digit is found also when reading from a later seq (the chain seed is the previous event)", async () => {
      const path = await storeWithPayment();
      replaceBytesInFile(path, '"amount":1000', '"amount":1001');
      const store = new SqliteStore({ path });
      await expect(store.read("s1", { fromSeq: 3 })).rejects.toMatchObject({ code: "event_corrupted", seq: 3 });
      await expect(store.read("s1", { fromSeq: 2, limit: 2 })).rejects.toMatchObject({ seq: 3 });
      expect((await store.read("s1", { fromSeq: 4 })).map((event) => event.seq)).toEqual([4, 5]);
      expect((await store.read("s1", { limit: 2 })).map((event) => event.seq)).toEqual([1, 2]);
      await store.close();
    });

    it("a deleted middle event row", async () => {
      const path = await storeWithPayment();
      withDatabase(path, (db) => db.prepare("DELETE FROM events WHERE session_id = 's1' AND seq = 3").run());
      const store = new SqliteStore({ path });
      await expect(store.read("s1")).rejects.toMatchObject({
        code: "event_corrupted",
        sessionId: "s1",
        seq: 3,
        damage: "missing_events",
      });
      await expect(store.read("s1", { fromSeq: 4 })).rejects.toMatchObject({ seq: 3, damage: "missing_events" });
      await store.close();
    });

    it("a deleted last event row (the session's summary still counts it)", async () => {
      const path = await storeWithPayment();
      withDatabase(path, (db) => db.prepare("DELETE FROM events WHERE session_id = 's1' AND seq = 5").run());
      const store = new SqliteStore({ path });
      await expect(store.read("s1")).rejects.toMatchObject({ seq: 5, damage: "missing_events" });
      await store.close();
    });

    it("two events whose contents were swapped", async () => {
      const path = await storeWithPayment();
      withDatabase(path, (db) => {
        db.transaction("immediate", () => {
          db.prepare("UPDATE events SET seq = -4 WHERE session_id = 's1' AND seq = 4").run();
          db.prepare("UPDATE events SET seq = 4 WHERE session_id = 's1' AND seq = 2").run();
          db.prepare("UPDATE events SET seq = 2 WHERE session_id = 's1' AND seq = -4").run();
        });
      });
      const store = new SqliteStore({ path });
      await expect(store.read("s1")).rejects.toMatchObject({ seq: 2, damage: "checksum_mismatch" });
      await store.close();
    });
  });

  describe(`SqliteStore on ${driver}: an existing file that is not a Nous store is refused, never re-initialised`, () => {
    it("a 0-byte file", () => {
      const path = nextPath();
      writeFileSync(path, "");
      expect(() => new SqliteStore({ path })).toThrow(/empty \(0 bytes\)/);
      try {
        new SqliteStore({ path });
      } catch (error) {
        expect(error).toMatchObject({ code: "store_unrecognized", fault: "store", reason: "empty_file" });
      }
      expect(statSync(path).size).toBe(0); // untouched
    });

    it("another application's SQLite file", () => {
      const path = nextPath();
      withDatabase(path, (db) => {
        db.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)");
      });
      const before = readFileSync(path);
      expect(() => new SqliteStore({ path })).toThrow(/another application/);
      try {
        new SqliteStore({ path });
      } catch (error) {
        expect(error).toMatchObject({ code: "store_unrecognized", reason: "foreign_schema", location: path });
        expect((error as Error).message).toContain("invoices");
      }
      expect(readFileSync(path).equals(before)).toBe(true);
    });

    it("a file that is not SQLite at all", () => {
      const path = nextPath();
      writeFileSync(path, "name,total\nmilk,1.20\n".repeat(50));
      expect(() => new SqliteStore({ path })).toThrow(/not an SQLite database/);
    });

    it("creates a file that did not exist, and an empty SQLite database (nothing to lose) is initialised", async () => {
      const created = nextPath();
      const store = new SqliteStore({ path: created });
      await store.append("s1", events(), { expectedLastSeq: 0 });
      await store.close();
      const empty = nextPath();
      withDatabase(empty, (db) => db.pragma("user_version = 0"));
      const reopened = new SqliteStore({ path: empty });
      expect(await reopened.read("s1")).toEqual([]);
      await reopened.close();
    });
  });

  describe(`SqliteStore on ${driver}: files written by schema version 1`, () => {
    it("open, migrate (checksums backfilled) and read and verify clean", async () => {
      const path = nextPath();
      const v1 = SQLITE_MIGRATIONS[0];
      if (v1?.version !== 1) throw new Error("the first migration is version 1");
      withDatabase(path, (db) => {
        db.pragma("journal_mode = WAL");
        db.exec(v1.sql);
        db.pragma("user_version = 1");
        db.prepare(
          "INSERT INTO sessions (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text) VALUES ('old', 1, 1, 5, 'idle', 'idle', NULL, NULL, '[]', 'old')",
        ).run();
        const insert = db.prepare(
          "INSERT INTO events (session_id, seq, at, type, run_id, data) VALUES ('old', ?, ?, ?, NULL, ?)",
        );
        for (const event of paymentSession()) insert.run(event.seq, event.at, event.type, JSON.stringify(event.data));
      });
      const store = new SqliteStore({ path });
      expect(await store.read("old")).toEqual(events().map((event) => ({ ...event, sessionId: "old" })));
      await store.append(
        "old",
        [{ seq: 6, at: "2025-01-03T00:00:00.000Z", type: "note", data: { after: true } } as SessionEvent],
        {
          expectedLastSeq: 5,
        },
      );
      expect(await store.read("old", { fromSeq: 5 })).toHaveLength(2);
      expect(await store.verify()).toMatchObject({ ok: true, checkedSessions: 1, checkedEvents: 6 });
      await store.close();
      withDatabase(path, (db) => {
        expect(db.pragmaValue("user_version")).toBe(SQLITE_MIGRATIONS.at(-1)?.version);
      });
    });

    it("does not bless an event whose JSON was already damaged: it stays reported after the migration", async () => {
      const path = nextPath();
      withDatabase(path, (db) => {
        db.exec(SQLITE_MIGRATIONS[0]?.sql ?? "");
        db.pragma("user_version = 1");
        db.prepare(
          "INSERT INTO sessions (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text) VALUES ('old', 1, 1, 3, 'idle', 'idle', NULL, NULL, '[]', 'old')",
        ).run();
        const insert = db.prepare(
          "INSERT INTO events (session_id, seq, at, type, run_id, data) VALUES ('old', ?, '2025-01-01T00:00:00.000Z', 'note', NULL, ?)",
        );
        insert.run(1, '{"ok":1}');
        insert.run(2, '{"ok":2');
        insert.run(3, '{"ok":3}');
      });
      const store = new SqliteStore({ path });
      await expect(store.read("old")).rejects.toMatchObject({ seq: 2, damage: "invalid_json" });
      expect(await store.read("old", { fromSeq: 3 })).toHaveLength(1); // the chain resumes after it
      expect((await store.verify()).sessions).toMatchObject([{ status: "damaged", seq: 2 }]);
      await store.close();
    });
  });

  describe(`SqliteStore on ${driver}: fork`, () => {
    it("a damaged lifecycle event met by fork is an EventCorruptedError, not a SyntaxError", async () => {
      const path = nextPath();
      const store = new SqliteStore({ path });
      await store.append(
        "s1",
        [{ seq: 1, at: "2025-01-01T00:00:00.000Z", type: "run_started", data: { runId: "r1" } } as SessionEvent],
        { expectedLastSeq: 0 },
      );
      await store.close();
      withDatabase(path, (db) => db.prepare('UPDATE events SET data = \'{"runId":"r1\' WHERE seq = 1').run());
      const reopened = new SqliteStore({ path });
      const failure = reopened.fork("s1", { atSeq: 1, newSessionId: "copy" });
      await expect(failure).rejects.toBeInstanceOf(EventCorruptedError);
      await expect(failure).rejects.toMatchObject({
        operation: "fork",
        sessionId: "s1",
        seq: 1,
        damage: "invalid_json",
      });
      await reopened.close();
    });
  });

  describe(`SqliteStore on ${driver}: a damaged WAL frame (what SQLite's recovery does, and what the chain can see)`, () => {
    it("drops the damaged frame's transaction and every later one, valid or not: a consistent, shorter log", async () => {
      const path = nextPath();
      const store = new SqliteStore({ path });
      // Another open connection keeps close() from checkpointing: the transactions stay in the WAL.
      const keeper = openRawSqlite(driver, path, { readonly: true });
      keeper.pragmaValue("user_version");
      const note = (seq: number, text: string) =>
        ({ seq, at: "2025-01-01T00:00:00.000Z", type: "note", data: { text } }) as SessionEvent;
      await store.append("s1", [note(1, "first"), note(2, "second")], { expectedLastSeq: 0 }); // transaction 1
      await store.append("s2", [note(1, "other session")], { expectedLastSeq: 0 }); // transaction 2
      await store.append("s1", [note(3, "third")], { expectedLastSeq: 2 }); // transaction 3
      await store.close();
      const crashImage = (): string => {
        const folder = join(directory, `crash-image-${++files}`);
        mkdirSync(folder);
        copyFileSync(path, join(folder, "sessions.db"));
        copyFileSync(`${path}-wal`, join(folder, "sessions.db-wal"));
        return folder;
      };
      const intact = crashImage();
      const crashed = crashImage();
      keeper.close();
      const control = new SqliteStore({ path: join(intact, "sessions.db") }); // the undamaged image has all three
      expect((await control.read("s1")).map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(await control.exists("s2")).toBe(true);
      await control.close();

      const wal = readFileSync(join(crashed, "sessions.db-wal"));
      const pageSize = wal.readUInt32BE(8);
      const frames: { offset: number; commit: boolean }[] = [];
      for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
        frames.push({ offset, commit: wal.readUInt32BE(offset + 4) !== 0 });
      }
      const commits = frames.flatMap((frame, index) => (frame.commit ? [index] : []));
      expect(commits.length).toBeGreaterThanOrEqual(3); // the WAL holds all three transactions
      const firstOfSecond = frames[(commits[0] as number) + 1] as { offset: number };
      const target = firstOfSecond.offset + 24 + 100;
      wal.writeUInt8(wal.readUInt8(target) ^ 0x01, target); // one flipped bit in transaction 2's first page
      writeFileSync(join(crashed, "sessions.db-wal"), wal);

      const recovered = new SqliteStore({ path: join(crashed, "sessions.db") });
      // Transaction 1 survives; 2 (damaged) and 3 (intact, committed, acknowledged) are gone.
      expect((await recovered.read("s1")).map((event) => event.seq)).toEqual([1, 2]);
      expect(await recovered.exists("s2")).toBe(false);
      // What remains is self-consistent: the chain, the summaries and SQLite's own check all pass.
      expect(await recovered.verify()).toMatchObject({ ok: true, checkedSessions: 1, checkedEvents: 2 });
      await recovered.close();
    });
  });
}

for (const driver of sqliteDriversUnderTest()) describeIntegrity(driver);
