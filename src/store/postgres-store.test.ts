import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { SessionConflictError, StoreError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import { migratePostgres, POSTGRES_MIGRATIONS } from "./postgres-migrations.js";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, postgresReachable } from "./test-support/postgres-server.js";
import { describeStoreConformance } from "./test-support/store-conformance.js";

const url = DATABASE_URL;
const schema = `nous_test_${process.pid}_${Date.now().toString(36)}`;
const reachable = await postgresReachable("PostgreSQL suite");

const event = (seq: number, data: unknown = { seq }): SessionEvent =>
  ({ seq, at: "2025-01-01T00:00:00.000Z", type: "note", data }) as SessionEvent;

if (reachable) {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const fresh = (groupCommit: boolean) => async () => {
    const store = await PostgresStore.connect(url, { schema, groupCommit });
    await admin.query(`TRUNCATE "${schema}".events, "${schema}".sessions, "${schema}".leases, "${schema}".blobs`);
    return store;
  };
  const reopen = () => PostgresStore.connect(url, { schema });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  describeStoreConformance({ name: "postgres", createStore: fresh(false), reopen });
  describeStoreConformance({ name: "postgres (group commit)", createStore: fresh(true), reopen });

  describe("PostgresStore", () => {
    it("migrates idempotently: connecting again, or many at once, applies each version once", async () => {
      const stores = await Promise.all([1, 2, 3].map(() => PostgresStore.connect(url, { schema })));
      const { rows } = await admin.query(`SELECT version FROM "${schema}".nous_migrations ORDER BY version`);
      expect(rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.version));
      const client = await admin.connect();
      try {
        await migratePostgres(client, schema);
      } finally {
        client.release();
      }
      await Promise.all(stores.map((store) => store.close()));
    });

    it("migrates a schema at version 1: its running sessions read as interrupted and can be leased", async () => {
      const old = `${schema}_v1`;
      const client = await admin.connect();
      try {
        await client.query(`CREATE SCHEMA "${old}"`);
        await client.query(
          `CREATE TABLE "${old}".nous_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const [first] = POSTGRES_MIGRATIONS;
        await client.query(first?.sql(`"${old}"`) ?? "");
        await client.query(`INSERT INTO "${old}".nous_migrations (version, name) VALUES (1, 'sessions and events')`);
        await client.query(
          `INSERT INTO "${old}".sessions (session_id, created_at, updated_at, last_seq, status, run_status, pending_approvals, search_text) VALUES ('old', now(), now(), 0, 'running', 'running', '[]', 'old')`,
        );
      } finally {
        client.release();
      }
      const store = await PostgresStore.connect(url, { schema: old });
      try {
        expect(await store.get("old")).toMatchObject({ status: "interrupted" });
        await store.acquireLease("old", { owner: "resumer", ttlMs: 60_000 });
        expect(await store.get("old")).toMatchObject({ status: "running" });
        const { rows } = await admin.query(`SELECT max(version) AS version FROM "${old}".nous_migrations`);
        expect(rows[0]?.version).toBe(POSTGRES_MIGRATIONS.at(-1)?.version);
      } finally {
        await store.close();
        await admin.query(`DROP SCHEMA "${old}" CASCADE`);
      }
    });

    it("times leases by the server's clock, not the client's", async () => {
      // A client clock an hour fast (it stamps createdAt/updatedAt) must not stretch a lease.
      const skewed = await PostgresStore.connect(url, { schema, now: () => Date.now() + 3_600_000 });
      try {
        const lease = await skewed.acquireLease("clock", { owner: "run-a", ttlMs: 60_000 });
        const { rows } = await admin.query<{ now: Date }>("SELECT clock_timestamp() AS now");
        const serverNow = rows[0]?.now.getTime() ?? 0;
        const expires = Date.parse(lease.expiresAt);
        expect(expires).toBeGreaterThan(serverNow);
        expect(expires).toBeLessThanOrEqual(serverNow + 60_000);
      } finally {
        await skewed.close();
      }
    });

    it("stores data as json text, not jsonb", async () => {
      const { rows } = await admin.query(
        "SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' AND column_name = 'data'",
        [schema],
      );
      expect(rows[0]?.data_type).toBe("json");
    });

    it("serializes racing stores in separate pools: one of two appends wins, including on session creation", async () => {
      const left = await PostgresStore.connect(url, { schema });
      const right = await PostgresStore.connect(url, { schema, groupCommit: true });
      for (let round = 0; round < 10; round++) {
        const id = `cross-${round}`;
        const results = await Promise.allSettled([
          left.append(id, [event(1, "left"), event(2, "left")], { expectedLastSeq: 0 }),
          right.append(id, [event(1, "right")], { expectedLastSeq: 0 }),
        ]);
        expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
        const rejected = results.find((result) => result.status === "rejected");
        expect(rejected?.status === "rejected" && rejected.reason).toBeInstanceOf(SessionConflictError);
        const stored = await left.read(id);
        expect(new Set(stored.map((item) => JSON.stringify(item.data))).size).toBe(1);
      }
      await left.close();
      await right.close();
    });

    it("leaves a pool it was given open, and wraps connection failures in StoreError", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const store = await PostgresStore.connect(pool, { schema });
      await store.close();
      expect((await pool.query("SELECT 1 AS one")).rows[0]?.one).toBe(1);
      await pool.end();
      const failure = PostgresStore.connect("postgres://postgres@127.0.0.1:1/none", { schema });
      await expect(failure).rejects.toBeInstanceOf(StoreError);
      await expect(failure).rejects.toMatchObject({ code: "store_failure", backend: "postgres", operation: "connect" });
    });
  });
}
