import { acquired, type LeaseRow, renewed, toLease } from "./lease-rules.js";
import type { AcquireLeaseOptions, Lease } from "./session-store.js";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-driver.js";

/** A `leases` row as SQLite returns it. */
export interface StoredLease {
  readonly owner: string | null;
  readonly token: number;
  readonly expires_at: number;
}

/**
 * The lease of a stored row, as the lease rules take it.
 *
 * @example
 * leaseRowOf({ owner: "w1", token: 3, expires_at: 1_700_000_000_000 }); // { owner: "w1", token: 3, expiresAtMs: … }
 */
export function leaseRowOf(row: StoredLease): LeaseRow {
  return { owner: row.owner, token: row.token, expiresAtMs: row.expires_at };
}

/**
 * The `leases` table of a SQLite store. Every change runs in an immediate transaction, so it is
 * serialized with appends (which check their fence in theirs) across processes sharing the file;
 * times come from the store's clock, read once the write lock is held.
 */
export class SqliteLeases {
  readonly #db: SqliteDatabase;
  readonly #statement: (sql: string) => SqliteStatement;
  readonly #now: () => number;

  constructor(db: SqliteDatabase, statement: (sql: string) => SqliteStatement, now: () => number) {
    this.#db = db;
    this.#statement = statement;
    this.#now = now;
  }

  acquire(sessionId: string, options: AcquireLeaseOptions): Lease {
    return this.#db.transaction("immediate", () => {
      const row = acquired(sessionId, this.#row(sessionId), options, this.#now());
      if (row instanceof Error) throw row;
      this.#write(sessionId, row);
      return toLease(sessionId, { ...row, owner: options.owner });
    });
  }

  renew(lease: Lease, ttlMs: number): Lease {
    return this.#db.transaction("immediate", () => {
      const row = renewed(lease, this.#row(lease.sessionId), ttlMs, this.#now());
      if (row instanceof Error) throw row;
      this.#write(lease.sessionId, row);
      return toLease(lease.sessionId, { ...row, owner: lease.owner });
    });
  }

  release(lease: Lease): void {
    this.#statement("UPDATE leases SET owner = NULL WHERE session_id = ? AND token = ? AND owner IS NOT NULL").run(
      lease.sessionId,
      lease.token,
    );
  }

  #row(sessionId: string): LeaseRow | undefined {
    const row = this.#statement("SELECT owner, token, expires_at FROM leases WHERE session_id = ?").get(sessionId) as
      | StoredLease
      | undefined;
    return row === undefined ? undefined : leaseRowOf(row);
  }

  #write(sessionId: string, row: LeaseRow): void {
    this.#statement(
      "INSERT INTO leases (session_id, owner, token, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, token = excluded.token, expires_at = excluded.expires_at",
    ).run(sessionId, row.owner, row.token, row.expiresAtMs);
  }
}
