import { LeaseLostError } from "../errors/lease-errors.js";
import { SessionConflictError, StoreArgumentError } from "../errors/store-errors.js";
import type { AcquireLeaseOptions, Lease, SessionStatus } from "./session-store.js";
import { checkIdentifier, checkInteger } from "./store-arguments.js";

/** The longest lease a store hands out: one day. */
export const MAX_LEASE_TTL_MS = 86_400_000;

/**
 * A session's lease as a store keeps it. A released lease keeps its row and token (`owner` null),
 * so the next acquire still counts up from it: tokens are never reused.
 */
export interface LeaseRow {
  readonly owner: string | null;
  readonly token: number;
  readonly expiresAtMs: number;
}

/**
 * Throws `StoreArgumentError` unless `ttlMs` is a whole number of milliseconds, 1 … one day.
 *
 * @example
 * checkTtl(0); // throws StoreArgumentError
 */
export function checkTtl(ttlMs: unknown): asserts ttlMs is number {
  checkInteger("ttlMs", ttlMs, 1);
  if (ttlMs > MAX_LEASE_TTL_MS) {
    throw new StoreArgumentError({ argument: "ttlMs", detail: `at most ${MAX_LEASE_TTL_MS}, got ${ttlMs}` });
  }
}

/**
 * Checks `acquireLease`'s arguments.
 *
 * @example
 * checkAcquire("s1", { owner: "", ttlMs: 1000 }); // throws StoreArgumentError (argument "owner")
 */
export function checkAcquire(sessionId: string, options: AcquireLeaseOptions): void {
  checkIdentifier("sessionId", sessionId);
  if (typeof options !== "object" || options === null) {
    throw new StoreArgumentError({ argument: "options", detail: "expected { owner, ttlMs }" });
  }
  checkIdentifier("owner", options.owner);
  checkTtl(options.ttlMs);
}

/**
 * Checks a lease handed back to `renewLease`/`releaseLease`.
 *
 * @example
 * checkLease({ sessionId: "s1", owner: "a", token: 0, expiresAt: "" }); // throws (token)
 */
export function checkLease(lease: Lease): void {
  if (typeof lease !== "object" || lease === null) {
    throw new StoreArgumentError({ argument: "lease", detail: "expected a lease returned by acquireLease" });
  }
  checkIdentifier("lease.sessionId", lease.sessionId);
  checkIdentifier("lease.owner", lease.owner);
  checkInteger("lease.token", lease.token, 1);
}

/**
 * Checks an append's `fence` (absent, or a token ≥ 1).
 *
 * @example
 * checkFence(undefined); // ok
 */
export function checkFence(fence: unknown): asserts fence is number | undefined {
  if (fence !== undefined) checkInteger("fence", fence, 1);
}

/** Whether the lease holds the session now: taken, not released, not expired. */
export function isLive(row: LeaseRow | undefined, nowMs: number): row is LeaseRow & { owner: string } {
  return row !== undefined && row.owner !== null && row.expiresAtMs > nowMs;
}

/**
 * The lease `acquireLease` writes, or the conflict it reports while another owner's lease is live.
 *
 * @example
 * const next = acquired("s1", undefined, { owner: "a", ttlMs: 1000 }, Date.now()); // token 1
 */
export function acquired(
  sessionId: string,
  row: LeaseRow | undefined,
  options: AcquireLeaseOptions,
  nowMs: number,
): LeaseRow | SessionConflictError {
  if (isLive(row, nowMs) && row.owner !== options.owner) return heldError(sessionId, row);
  return { owner: options.owner, token: (row?.token ?? 0) + 1, expiresAtMs: nowMs + options.ttlMs };
}

/**
 * The lease `renewLease` writes, or `LeaseLostError` when the token is stale or was released.
 *
 * @example
 * renewed(lease, row, 30_000, Date.now());
 */
export function renewed(
  lease: Lease,
  row: LeaseRow | undefined,
  ttlMs: number,
  nowMs: number,
): LeaseRow | LeaseLostError {
  if (row === undefined || row.token !== lease.token || row.owner === null)
    return lostError(lease.sessionId, lease.token);
  return { owner: row.owner, token: row.token, expiresAtMs: nowMs + ttlMs };
}

/**
 * Why an append must be refused for its lease, if it must: a fenced append whose token is not the
 * current held one (`LeaseLostError`), or an unfenced append while a lease is live (`SessionConflictError`).
 *
 * @example
 * const problem = fenceProblem("s1", row, options.fence, Date.now());
 * if (problem) throw problem;
 */
export function fenceProblem(
  sessionId: string,
  row: LeaseRow | undefined,
  fence: number | undefined,
  nowMs: number,
): Error | undefined {
  if (fence === undefined) return isLive(row, nowMs) ? heldError(sessionId, row) : undefined;
  if (row === undefined || row.token !== fence || row.owner === null) return lostError(sessionId, fence);
  return undefined;
}

/**
 * The public lease of a stored row.
 *
 * @example
 * toLease("s1", { owner: "a", token: 3, expiresAtMs: 0 }).expiresAt; // "1970-01-01T00:00:00.000Z"
 */
export function toLease(sessionId: string, row: LeaseRow & { owner: string }): Lease {
  return { sessionId, owner: row.owner, token: row.token, expiresAt: new Date(row.expiresAtMs).toISOString() };
}

/**
 * The refusal a live lease causes.
 *
 * @example
 * throw heldError("s1", { owner: "worker-1", token: 2, expiresAtMs: Date.now() + 1000 });
 */
export function heldError(sessionId: string, row: { owner: string; expiresAtMs: number }): SessionConflictError {
  return new SessionConflictError({
    sessionId,
    heldBy: row.owner,
    heldUntil: new Date(row.expiresAtMs).toISOString(),
  });
}

/**
 * The error of a stale or released token.
 *
 * @example
 * throw lostError("s1", 2);
 */
export function lostError(sessionId: string, token: number): LeaseLostError {
  return new LeaseLostError({ sessionId, token });
}

/**
 * The status a summary reports: a session stored as `"running"` is `"interrupted"` unless a lease
 * on it is live (its run's process died, stopped, or never took one).
 *
 * @example
 * reportedStatus("running", undefined, Date.now()); // "interrupted"
 */
export function reportedStatus(stored: SessionStatus, row: LeaseRow | undefined, nowMs: number): SessionStatus {
  return stored === "running" && !isLive(row, nowMs) ? "interrupted" : stored;
}
