import type { EventDamage } from "../errors/store-errors.js";

/** The outcome of verifying one session: every event read back and its checksum chain checked. */
export type SessionVerification =
  | {
      readonly status: "ok";
      readonly sessionId: string;
      /** Events verified (the session's last seq). */
      readonly events: number;
    }
  | {
      readonly status: "damaged";
      readonly sessionId: string;
      /** Events verified before the first damaged one. */
      readonly events: number;
      /** The first damaged (or missing) seq. */
      readonly seq: number;
      readonly damage: EventDamage;
      /** What is wrong, in words. */
      readonly detail: string;
      /** The `EventCorruptedError` message. */
      readonly message: string;
    };

/** What the storage engine itself reports (SQLite: `PRAGMA integrity_check` and `foreign_key_check`). */
export interface StorageCheck {
  readonly ok: boolean;
  /** `["ok"]` when healthy, else each problem the engine reported. */
  readonly messages: readonly string[];
}

/**
 * The report of `store.verify()`: per session, and in total. `ok` is true only when every session
 * verified clean and the storage check (when the backend has one) passed.
 *
 * @example
 * const report = await store.verify();
 * for (const session of report.sessions) if (session.status === "damaged") console.error(session.message);
 */
export interface StoreVerification {
  readonly ok: boolean;
  readonly sessions: readonly SessionVerification[];
  readonly checkedSessions: number;
  readonly checkedEvents: number;
  readonly damagedSessions: number;
  /** Present for SQLite when the whole store was verified. */
  readonly storage?: StorageCheck;
}
