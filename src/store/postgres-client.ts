import type { Pool, PoolClient } from "pg";
import { NousError } from "../errors/nous-error.js";

/**
 * Example: `const rows = await withClient(pool, (client) => client.query("SELECT 1"));`
 *
 * Checks a client out of `pool`, runs `body` with it and releases it. For as long as the client is
 * checked out it has an `'error'` listener: pg emits `'error'` on a client whose connection dies (a
 * terminated backend, a restarted server), and an `'error'` event without a listener kills the
 * process. The failure reaches the caller through the query that was running, or the next one (pg
 * refuses queries on a broken client). A client whose connection broke is discarded, not returned
 * to the pool.
 */
export async function withClient<T>(pool: Pool, body: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    return await body(client);
  } catch (error) {
    // The query can fail before the client's own 'error' event arrives: do not pool it meanwhile.
    if (broken === undefined && connectionLost(error))
      broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // pg-pool attaches its idle listener in release(), in the same tick: there is no gap.
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/**
 * Keeps `pool` from killing the process when an idle client's connection dies (pg-pool re-emits that
 * client's error on the pool, where a missing listener is fatal). The pool drops the client; the
 * next query connects afresh. Returns a function that removes the listener again.
 */
export function guardPool(pool: Pool): () => void {
  const ignore = () => undefined;
  pool.on("error", ignore);
  return () => {
    pool.removeListener("error", ignore);
  };
}

/** Whether an error means the connection is gone, rather than a statement failing on a live one. */
function connectionLost(error: unknown): boolean {
  if (NousError.isInstance(error)) return false;
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  // An error the server sent has a severity and a SQLSTATE: class 08 is a connection exception, 57
  // a terminated session; any other is a statement failing on a live connection.
  if (typeof severity === "string" && typeof code === "string") return code.startsWith("08") || code.startsWith("57");
  return true; // "Connection terminated unexpectedly", socket errors (ECONNRESET, EPIPE), "not queryable"
}
