import type { Pool } from "pg";
import { heldError, type LeaseRow, lostError } from "./lease-rules.js";
import type { AcquireLeaseOptions, Lease } from "./session-store.js";

/** Lease rows with their times in epoch ms and the server's clock at reading (`now_ms`); `lockLeasesSql`'s rows. */
export interface LeaseRowColumns {
  readonly session_id: string;
  readonly owner: string | null;
  readonly token: string;
  readonly expires_ms: number;
  readonly now_ms: number;
}

const EXPIRY = "clock_timestamp() + $3 * interval '1 millisecond'";
const MS = (expression: string) => `(extract(epoch from ${expression}) * 1000)::float8`;

/**
 * Takes a session's lease in one upsert: the row is locked and the condition (none live, or ours)
 * evaluated on its latest version, so of concurrent acquirers exactly one wins. Times are the
 * server's (`clock_timestamp()`), never a client's.
 *
 * @example
 * const lease = await acquirePostgresLease(pool, '"nous".leases', "s1", { owner: "w1", ttlMs: 30_000 });
 */
export async function acquirePostgresLease(
  pool: Pool,
  table: string,
  sessionId: string,
  options: AcquireLeaseOptions,
): Promise<Lease> {
  for (let attempt = 0; ; attempt++) {
    const { rows } = await pool.query<{ token: string; expires_at: Date }>(
      `INSERT INTO ${table} AS l (session_id, owner, token, expires_at) VALUES ($1, $2, 1, ${EXPIRY})
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1, expires_at = EXCLUDED.expires_at
       WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp() OR l.owner = EXCLUDED.owner
       RETURNING token::text AS token, expires_at`,
      [sessionId, options.owner, options.ttlMs],
    );
    const taken = rows[0];
    if (taken !== undefined) {
      return { sessionId, owner: options.owner, token: Number(taken.token), expiresAt: taken.expires_at.toISOString() };
    }
    const held = await pool.query<{ owner: string; expires_at: Date }>(
      `SELECT owner, expires_at FROM ${table} WHERE session_id = $1 AND owner IS NOT NULL AND expires_at > clock_timestamp()`,
      [sessionId],
    );
    const holder = held.rows[0];
    // Released or expired between the two statements: try again (a few times, then report it held).
    if (holder !== undefined || attempt >= 3) {
      throw heldError(sessionId, {
        owner: holder?.owner ?? "another run",
        expiresAtMs: holder?.expires_at.getTime() ?? Date.now(),
      });
    }
  }
}

/**
 * The heartbeat: extends the lease if its token is still current and held.
 *
 * @example
 * lease = await renewPostgresLease(pool, '"nous".leases', lease, 30_000);
 */
export async function renewPostgresLease(pool: Pool, table: string, lease: Lease, ttlMs: number): Promise<Lease> {
  const { rows } = await pool.query<{ expires_at: Date }>(
    `UPDATE ${table} SET expires_at = ${EXPIRY} WHERE session_id = $1 AND token = $2 AND owner IS NOT NULL RETURNING expires_at`,
    [lease.sessionId, lease.token, ttlMs],
  );
  const row = rows[0];
  if (row === undefined) throw lostError(lease.sessionId, lease.token);
  return { ...lease, expiresAt: row.expires_at.toISOString() };
}

/**
 * Gives the lease up when its token is still current; a stale token changes nothing.
 *
 * @example
 * await releasePostgresLease(pool, '"nous".leases', lease);
 */
export async function releasePostgresLease(pool: Pool, table: string, lease: Lease): Promise<void> {
  await pool.query(`UPDATE ${table} SET owner = NULL WHERE session_id = $1 AND token = $2 AND owner IS NOT NULL`, [
    lease.sessionId,
    lease.token,
  ]);
}

/**
 * The statement share-locking the lease rows of the sessions an append writes to, until the
 * transaction ends (an acquire waits for an append that checked the old token to commit), with the
 * server's clock to judge them by. `ids` is an SQL `text[]` expression of the session ids.
 *
 * @example
 * const sql = lockLeasesSql('"nous".leases', "ARRAY['s1']::text[]");
 */
export function lockLeasesSql(table: string, ids: string): string {
  return `SELECT session_id, owner, token::text AS token, ${MS("expires_at")} AS expires_ms, ${MS("clock_timestamp()")} AS now_ms
     FROM ${table} WHERE session_id = ANY(${ids}) ORDER BY session_id FOR SHARE`;
}

/**
 * The leases of `lockLeasesSql`'s rows, and the server's clock.
 *
 * @example
 * const { rows, nowMs } = lockedLeases(result.rows);
 */
export function lockedLeases(rows: readonly LeaseRowColumns[]): { rows: Map<string, LeaseRow>; nowMs: number } {
  const leases = new Map<string, LeaseRow>();
  for (const row of rows) {
    leases.set(row.session_id, { owner: row.owner, token: Number(row.token), expiresAtMs: row.expires_ms });
  }
  // With no row, no lease is live whatever the time: the clock is not needed.
  return { rows: leases, nowMs: rows[0]?.now_ms ?? 0 };
}
