/**
 * A PostgreSQL connection terminated (`pg_terminate_backend`) under a PostgresStore, at several
 * points: the process survives (each scenario runs in a child process, whose death by an unhandled
 * pg `'error'` event shows as exit code 1), the interrupted call fails with `StoreError`, and the
 * next call works on a fresh connection.
 */
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DATABASE_URL, dropSchema, postgresReachable } from "../../test/durability/harness.js";
import { runScript } from "../test-support/node-script.js";
import { PostgresStore } from "./postgres-store.js";

const child = join(import.meta.dirname, "test-support", "connection-loss-child.ts");
const reachable = await postgresReachable();
const schemas: string[] = [];

afterAll(async () => {
  if (reachable) for (const schema of schemas) await dropSchema(schema);
});

async function runPoint(point: string): Promise<Record<string, unknown>> {
  const schema = `nous_loss_${process.pid}_${schemas.length}`;
  schemas.push(schema);
  const outcome = await runScript(child, { args: [point, schema] });
  const detail = `${outcome.lines.join("\n")}\n${outcome.stderr}`;
  expect(outcome.code, `the child process died: ${detail}`).toBe(0);
  const line = outcome.lines.find((text) => text.startsWith("RESULT "));
  expect(line, detail).toBeDefined();
  return JSON.parse((line as string).slice("RESULT ".length)) as Record<string, unknown>;
}

const storeFailure = (operation: string) => ({
  ok: false,
  error: { name: "StoreError", code: "store_failure", operation },
});

describe.runIf(reachable)("PostgresStore: a terminated connection never kills the process", () => {
  it("idle in a pool the application gave: the pool drops it and the next append uses a fresh connection", async () => {
    const result = await runPoint("idle-in-pool");
    expect(result.states).toEqual(["idle"]);
    expect(result).toMatchObject({ next: { ok: true }, seqs: [1, 2] });
  });

  it("idle in the pool and used at once: that call may fail (StoreError), the next one works", async () => {
    const result = await runPoint("idle-in-pool-used-at-once");
    expect(result.states).toEqual(["idle"]);
    const interrupted = result.interrupted as { ok: boolean };
    if (!interrupted.ok) expect(interrupted).toEqual(storeFailure("read"));
    expect(result).toMatchObject({ next: { ok: true }, seqs: [1, 2] });
  });

  it.each([
    ["mid-append-row-lock", "waiting for the session's row lock"],
    ["mid-append-write", "writing the events"],
    ["mid-append-group-commit", "in a group commit"],
  ])("inside an append transaction (%s: %s): StoreError, nothing of it committed, the retry commits", async (point) => {
    const result = await runPoint(point);
    expect(result.interrupted).toEqual(storeFailure("append"));
    expect(result).toMatchObject({ next: { ok: true }, seqs: [1, 2] });
  });

  it("during a read: StoreError, the next read works", async () => {
    const result = await runPoint("during-read");
    expect(result).toMatchObject({ interrupted: storeFailure("read"), next: { ok: true } });
  });

  it("the connection drops after the server committed, before the reply: StoreError, the events are there, a blind retry conflicts", async () => {
    const result = await runPoint("commit-ack-lost");
    expect(result).toMatchObject({
      lost: 1,
      interrupted: storeFailure("append"),
      seqs: [1, 2],
      retry: { ok: false, error: { name: "SessionConflictError", code: "session_conflict" } },
      next: { ok: true },
    });
  });

  it("during a fork's transaction: StoreError, the fork again works", async () => {
    const result = await runPoint("during-fork");
    expect(result).toMatchObject({ interrupted: storeFailure("fork"), next: { ok: true } });
  });

  it("during the migration at connect: StoreError, connecting again works", async () => {
    const result = await runPoint("during-migration");
    expect(result).toMatchObject({ interrupted: storeFailure("connect"), next: { ok: true } });
  });
});

describe.runIf(reachable)("PostgresStore: the pool's error listener", () => {
  it("is on a pool the application gave for as long as the store is open, and removed by close", async () => {
    const schema = `nous_loss_${process.pid}_guard`;
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    const store = await PostgresStore.connect(pool, { schema });
    expect(pool.listenerCount("error")).toBe(1);
    await store.close();
    expect(pool.listenerCount("error")).toBe(0);
    await pool.end();
  });
});
