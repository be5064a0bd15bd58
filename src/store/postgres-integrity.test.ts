import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../session/events.js";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations.js";
import { PostgresStore } from "./postgres-store.js";
import { paymentSession } from "./test-support/damage.js";
import { DATABASE_URL, postgresReachable } from "./test-support/postgres-server.js";

const url = DATABASE_URL;
const prefix = `nous_integrity_${process.pid}_${Date.now().toString(36)}`;
const reachable = await postgresReachable("PostgreSQL integrity suite");

const events = () => paymentSession() as unknown as SessionEvent[];

if (reachable) {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schemas: string[] = [];
  let count = 0;
  const nextSchema = () => {
    const schema = `${prefix}_${++count}`;
    schemas.push(schema);
    return schema;
  };
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  /** A schema holding the payment session as "s1", and a store connected to it. */
  async function storeWithPayment(): Promise<{ store: PostgresStore; schema: string }> {
    const schema = nextSchema();
    const store = await PostgresStore.connect(url, { schema, poolSize: 2 });
    await store.append("s1", events(), { expectedLastSeq: 0 });
    await store.append("other", events().slice(0, 2), { expectedLastSeq: 0 });
    return { store, schema };
  }

  describe("PostgresStore: a damaged event is a typed error naming the session and seq", () => {
    it("one changed byte inside a row's JSON", async () => {
      const { store, schema } = await storeWithPayment();
      await admin.query(
        `UPDATE "${schema}".events SET data = replace(data::text, 'pay-invoice', 'pay-invoicf')::json WHERE session_id = 's1' AND seq = 3`,
      );
      const failure = store.read("s1");
      await expect(failure).rejects.toMatchObject({ code: "event_corrupted", sessionId: "s1", seq: 3 });
      await expect(failure).rejects.toThrow(/session "s1".*seq 3/i);
      expect(await store.read("other")).toHaveLength(2);
      const report = await store.verify();
      expect(report).toMatchObject({ ok: false, checkedSessions: 2, damagedSessions: 1 });
      expect(report.sessions.find((session) => session.sessionId === "s1")).toMatchObject({
        status: "damaged",
        seq: 3,
        damage: "checksum_mismatch",
      });
      expect(await store.verify("other")).toMatchObject({ ok: true });
      await store.close();
    });

    it("one changed digit inside event data, also read from a later seq", async () => {
      const { store, schema } = await storeWithPayment();
      await admin.query(
        `UPDATE "${schema}".events SET data = replace(data::text, '1000', '1900')::json WHERE session_id = 's1' AND seq = 3`,
      );
      await expect(store.read("s1")).rejects.toMatchObject({ seq: 3, damage: "checksum_mismatch" });
      await expect(store.read("s1", { fromSeq: 3 })).rejects.toMatchObject({ seq: 3, damage: "checksum_mismatch" });
      expect((await store.read("s1", { fromSeq: 4 })).map((event) => event.seq)).toEqual([4, 5]);
      await store.close();
    });

    it("a deleted middle event row", async () => {
      const { store, schema } = await storeWithPayment();
      await admin.query(`DELETE FROM "${schema}".events WHERE session_id = 's1' AND seq = 2`);
      await expect(store.read("s1")).rejects.toMatchObject({ sessionId: "s1", seq: 2, damage: "missing_events" });
      await store.close();
    });
  });

  describe("PostgresStore: pipelined appends", () => {
    it("an append that waited for the row lock chains on the event the other writer just committed", async () => {
      const schema = nextSchema();
      const store = await PostgresStore.connect(url, { schema, poolSize: 4 });
      const note = (seq: number) =>
        ({ seq, at: "2025-01-01T00:00:00.000Z", type: "note", data: { seq } }) as SessionEvent;
      await store.append("pipe", [note(1)], { expectedLastSeq: 0 });
      let waited = 0;
      for (let round = 0; round < 40; round++) {
        const last = await store.lastSeq("pipe");
        // The second append expects the first to land: it either waits for its lock or conflicts.
        const [, second] = await Promise.allSettled([
          store.append("pipe", [note(last + 1)], { expectedLastSeq: last }),
          store.append("pipe", [note(last + 2)], { expectedLastSeq: last + 1 }),
        ]);
        if (second?.status === "fulfilled") waited++;
      }
      expect(waited).toBeGreaterThan(0); // some second appends really chained on the first
      const report = await store.verify("pipe");
      expect(report.sessions[0]).toMatchObject({ status: "ok" });
      await store.close();
    });
  });

  describe("PostgresStore: a schema with tables Nous did not create is refused", () => {
    it("a schema that records migrations but lost its events table is refused too", async () => {
      const schema = nextSchema();
      const store = await PostgresStore.connect(url, { schema, poolSize: 1 });
      await store.close();
      await admin.query(`DROP TABLE "${schema}".events`);
      await expect(PostgresStore.connect(url, { schema })).rejects.toMatchObject({
        code: "store_unrecognized",
        reason: "missing_tables",
      });
    });

    it("names the foreign tables and changes nothing", async () => {
      const schema = nextSchema();
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(`CREATE TABLE "${schema}".events (id serial PRIMARY KEY, title text)`);
      const failure = PostgresStore.connect(url, { schema });
      await expect(failure).rejects.toMatchObject({ code: "store_unrecognized", reason: "foreign_schema" });
      await expect(failure).rejects.toThrow(/events/);
      const { rows } = await admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema],
      );
      expect(rows.map((row) => row.table_name)).toEqual(["events"]);
    });
  });

  describe("PostgresStore: a schema at version 1", () => {
    it("migrates (checksums backfilled) and reads and appends", async () => {
      const schema = nextSchema();
      const v1 = POSTGRES_MIGRATIONS[0];
      if (v1?.version !== 1) throw new Error("the first migration is version 1");
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(
        `CREATE TABLE "${schema}".nous_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      await admin.query(v1.sql(`"${schema}"`));
      await admin.query(`INSERT INTO "${schema}".nous_migrations (version, name) VALUES (1, $1)`, [v1.name]);
      await admin.query(
        `INSERT INTO "${schema}".sessions (session_id, created_at, updated_at, last_seq, status, run_status, pending_approvals, search_text) VALUES ('old', now(), now(), 5, 'idle', 'idle', '[]', 'old')`,
      );
      for (const event of paymentSession()) {
        await admin.query(
          `INSERT INTO "${schema}".events (session_id, seq, at, type, run_id, data) VALUES ('old', $1, $2, $3, NULL, $4::json)`,
          [event.seq, event.at, event.type, JSON.stringify(event.data)],
        );
      }
      // A session longer than one backfill page (5000 rows), so the chain crosses pages.
      await admin.query(
        `INSERT INTO "${schema}".sessions (session_id, created_at, updated_at, last_seq, status, run_status, pending_approvals, search_text) VALUES ('bulk', now(), now(), 7500, 'idle', 'idle', '[]', 'bulk')`,
      );
      await admin.query(
        `INSERT INTO "${schema}".events (session_id, seq, at, type, run_id, data)
         SELECT 'bulk', g, '2025-01-01T00:00:00.000Z', 'note', 'r1', json_build_object('n', g) FROM generate_series(1, 7500) g`,
      );
      const store = await PostgresStore.connect(url, { schema, poolSize: 2 });
      expect(await store.verify("bulk")).toMatchObject({ ok: true, checkedEvents: 7500 });
      expect((await store.read("bulk", { fromSeq: 5000, limit: 2 })).map((event) => event.data)).toEqual([
        { n: 5000 },
        { n: 5001 },
      ]);
      expect(await store.read("old")).toEqual(events().map((event) => ({ ...event, sessionId: "old" })));
      await store.append("old", [{ seq: 6, at: "2025-01-03T00:00:00.000Z", type: "note", data: {} } as SessionEvent], {
        expectedLastSeq: 5,
      });
      expect(await store.read("old", { fromSeq: 5 })).toHaveLength(2);
      expect(await store.verify()).toMatchObject({ ok: true, checkedSessions: 2, checkedEvents: 7506 });
      const fork = await store.fork("old", { atSeq: 4, newSessionId: "old-fork" });
      expect(await store.verify(fork)).toMatchObject({ ok: true, checkedEvents: 4 });
      await store.close();
    });
  });
}
