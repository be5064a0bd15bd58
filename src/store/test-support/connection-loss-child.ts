/**
 * Child process of postgres-connection-loss.test.ts. Usage: `connection-loss-child.ts <point> <schema>`.
 * Terminates (`pg_terminate_backend`, from a second connection) the backend of a PostgresStore
 * connection at one point, then prints `RESULT <json>`: how the interrupted call ended and whether
 * the next calls work. An unhandled `'error'` event of a pg client or pool kills the process instead
 * (exit code 1), which is what the parent checks for.
 */
import pg from "pg";
import { NousError } from "../../errors/nous-error.js";
import type { SessionEvent } from "../../session/events.js";
import { commitAckProxy } from "../../test-support/commit-ack-proxy.js";
import { PostgresStore } from "../postgres-store.js";

const [point = "", schema = ""] = process.argv.slice(2);
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const appName = `nous-loss-${process.pid}`;
const storeUrl = (() => {
  const parsed = new URL(url);
  parsed.searchParams.set("application_name", appName);
  return parsed.toString();
})();
const table = (name: string) => `"${schema}".${name}`;

const note = (seq: number): SessionEvent =>
  ({ seq, at: "2025-01-01T00:00:00.000Z", type: "note", data: { seq } }) as SessionEvent;

interface Settled {
  readonly ok: boolean;
  readonly error?: { readonly name: string; readonly code?: string; readonly operation?: string };
}

async function settle(promise: Promise<unknown>): Promise<Settled> {
  try {
    await promise;
    return { ok: true };
  } catch (error) {
    const fields = error as { name?: string; operation?: string };
    return {
      ok: false,
      error: {
        name: fields.name ?? "unknown",
        code: NousError.isInstance(error) ? error.code : undefined,
        operation: fields.operation,
      },
    };
  }
}

async function admin<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** Terminates this process's backends that match `where` (SQL over pg_stat_activity); returns their states. */
async function terminate(where = "true"): Promise<string[]> {
  return admin(async (client) => {
    const { rows } = await client.query<{ state: string; terminated: boolean }>(
      `SELECT state, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND (${where})`,
      [appName],
    );
    return rows.filter((row) => row.terminated).map((row) => row.state);
  });
}

/** Waits until one of this process's backends waits for a lock (the call under test is blocked there). */
async function blockedOnLock(): Promise<void> {
  await admin(async (client) => {
    for (let attempt = 0; attempt < 2000; attempt++) {
      const { rows } = await client.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
        [appName],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("the call never blocked on the lock");
  });
}

/**
 * Holds `lock` (SQL run in an open transaction of another connection) while `call` runs and blocks
 * on it, terminates the blocked backend, then releases the lock. Returns how `call` ended.
 */
async function interruptWhileBlocked(lock: string, call: () => Promise<unknown>): Promise<Settled> {
  return admin(async (blocker) => {
    await blocker.query("BEGIN");
    await blocker.query(lock);
    const pending = settle(call());
    await blockedOnLock();
    const states = await terminate("wait_event_type = 'Lock'");
    if (states.length !== 1) throw new Error(`expected one blocked backend, terminated ${states.length}`);
    const interrupted = await pending;
    await blocker.query("ROLLBACK");
    return interrupted;
  });
}

async function appendPoint(store: PostgresStore, lock: string): Promise<Record<string, unknown>> {
  await store.append("s", [note(1)], { expectedLastSeq: 0 });
  const interrupted = await interruptWhileBlocked(lock, () => store.append("s", [note(2)], { expectedLastSeq: 1 }));
  // The same append again: it must not find seq 2 taken (the interrupted one was rolled back).
  const next = await settle(store.append("s", [note(2)], { expectedLastSeq: 1 }));
  return { interrupted, next, seqs: (await store.read("s")).map((event) => event.seq) };
}

async function main(): Promise<Record<string, unknown>> {
  switch (point) {
    case "idle-in-pool": {
      // A pool the application created and gave the store: no error listener of its own.
      const pool = new pg.Pool({ connectionString: storeUrl, max: 2 });
      const store = await PostgresStore.connect(pool, { schema });
      await store.append("s", [note(1)], { expectedLastSeq: 0 });
      const removed = new Promise((resolve) => pool.once("remove", resolve));
      const states = await terminate();
      await removed; // the pool noticed and dropped the dead client
      const next = await settle(store.append("s", [note(2)], { expectedLastSeq: 1 }));
      const seqs = (await store.read("s")).map((event) => event.seq);
      await store.close();
      await pool.end();
      return { states, next, seqs };
    }
    case "idle-in-pool-used-at-once": {
      const store = await PostgresStore.connect(storeUrl, { schema, poolSize: 1 });
      await store.append("s", [note(1)], { expectedLastSeq: 0 });
      const states = await terminate();
      // Used before the client has seen its backend go: this call may fail; the next one must work.
      const interrupted = await settle(store.read("s"));
      const next = await settle(store.append("s", [note(2)], { expectedLastSeq: 1 }));
      const seqs = (await store.read("s")).map((event) => event.seq);
      await store.close();
      return { states, interrupted, next, seqs };
    }
    case "mid-append-row-lock":
    case "mid-append-write":
    case "mid-append-group-commit": {
      const store = await PostgresStore.connect(storeUrl, { schema, groupCommit: point === "mid-append-group-commit" });
      const lock =
        point === "mid-append-write"
          ? `LOCK TABLE ${table("events")} IN SHARE MODE`
          : `SELECT 1 FROM ${table("sessions")} WHERE session_id = 's' FOR UPDATE`;
      const result = await appendPoint(store, lock);
      await store.close();
      return result;
    }
    case "during-read": {
      const store = await PostgresStore.connect(storeUrl, { schema });
      await store.append("s", [note(1)], { expectedLastSeq: 0 });
      const interrupted = await interruptWhileBlocked(`LOCK TABLE ${table("events")} IN ACCESS EXCLUSIVE MODE`, () =>
        store.read("s"),
      );
      const next = await settle(store.read("s"));
      await store.close();
      return { interrupted, next };
    }
    case "during-fork": {
      const store = await PostgresStore.connect(storeUrl, { schema });
      await store.append("s", [note(1)], { expectedLastSeq: 0 });
      const interrupted = await interruptWhileBlocked(
        `SELECT 1 FROM ${table("sessions")} WHERE session_id = 's' FOR UPDATE`,
        () => store.fork("s", { atSeq: 1, newSessionId: "f" }),
      );
      const next = await settle(store.fork("s", { atSeq: 1, newSessionId: "f" }));
      await store.close();
      return { interrupted, next };
    }
    case "during-migration": {
      const interrupted = await interruptWhileBlocked(
        `SELECT pg_advisory_xact_lock(hashtext('nous.migrate:${schema}'))`,
        () => PostgresStore.connect(storeUrl, { schema }),
      );
      const store = await PostgresStore.connect(storeUrl, { schema });
      const next = await settle(store.append("m", [note(1)], { expectedLastSeq: 0 }));
      await store.close();
      return { interrupted, next };
    }
    case "commit-ack-lost": {
      // Not a terminated backend: the connection drops after the server committed, before the reply.
      const proxy = await commitAckProxy(storeUrl);
      const store = await PostgresStore.connect(proxy.url, { schema });
      await store.append("s", [note(1)], { expectedLastSeq: 0 });
      proxy.arm();
      const interrupted = await settle(store.append("s", [note(2)], { expectedLastSeq: 1 }));
      const seqs = (await store.read("s")).map((event) => event.seq);
      // A blind retry of the append cannot write it twice: it conflicts.
      const retry = await settle(store.append("s", [note(2)], { expectedLastSeq: 1 }));
      const next = await settle(store.append("s", [note(3)], { expectedLastSeq: 2 }));
      await store.close();
      await proxy.close();
      return { lost: proxy.lost, interrupted, seqs, retry, next };
    }
    default:
      throw new Error(`unknown point ${point}`);
  }
}

main().then(
  (result) => {
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stdout.write(`FAILED ${String(error)}\n`);
    process.exit(3);
  },
);
