import { LeaseLostError } from "../errors/lease-errors.js";
import { DefinitionError } from "../errors/user-errors.js";
import { hostProcess, nodeBuiltin } from "../platform/node-builtin.js";
import { randomUuid } from "../platform/random-uuid.js";
import type { LeaseSettings } from "../runner/types.js";
import type { Lease, SessionStore } from "../store/session-store.js";

/**
 * How long a session run's lease lasts without a heartbeat when no `lease.ttlMs` is given.
 *
 * @example
 * new Agent({ model, lease: { ttlMs: DEFAULT_LEASE_TTL_MS / 3 } }); // resumable sooner after a crash
 */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * The lease a session run holds from before it reads its session until it ends, however it ends.
 * A heartbeat renews it every `ttlMs / 3` (an `unref()`ed timer: it never keeps a process alive),
 * also while a tool or the model runs. When a renewal finds the lease lost (another run took the
 * session over), or no renewal succeeded for a whole ttl, `signal` aborts with `LeaseLostError`:
 * the in-flight tool or model call is cancelled and the run fails with that error. Its appends
 * carry `token` as their fence, so it could not write again anyway.
 */
export class RunLease {
  readonly #store: SessionStore;
  readonly #ttlMs: number;
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal | undefined;
  readonly #timer: ReturnType<typeof setInterval>;
  #lease: Lease;
  /** `performance.now()` until which the last successful renewal keeps the lease. */
  #validUntil: number;
  #renewing = false;
  #released = false;

  private constructor(store: SessionStore, lease: Lease, ttlMs: number, started: number, caller?: AbortSignal) {
    this.#store = store;
    this.#lease = lease;
    this.#ttlMs = ttlMs;
    this.#validUntil = started + ttlMs;
    this.#caller = caller;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else caller?.addEventListener("abort", this.#forwardAbort, { once: true });
    this.#timer = setInterval(() => void this.#beat(), Math.max(1, Math.floor(ttlMs / 3)));
    this.#timer.unref?.();
  }

  /**
   * Takes the session's lease for a new owner (this run). Rejects with `SessionConflictError` while
   * another run's lease is live; nothing is changed then.
   */
  static async acquire(
    store: SessionStore,
    sessionId: string,
    settings: LeaseSettings | undefined,
    caller: AbortSignal | undefined,
  ): Promise<RunLease> {
    const ttlMs = settings?.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 30 || ttlMs > 86_400_000) {
      throw new DefinitionError({
        message: `lease.ttlMs must be a whole number of ms from 30 to 86400000, got ${ttlMs}`,
      });
    }
    const started = performance.now();
    const lease = await store.acquireLease(sessionId, { owner: newOwner(), ttlMs });
    return new RunLease(store, lease, ttlMs, started, caller);
  }

  /** The run's abort signal: the caller's, and fired with `LeaseLostError` when the lease is lost. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The fencing token every append of the run carries. */
  get token(): number {
    return this.#lease.token;
  }

  /** Stops the heartbeat and gives the lease up (unless it was lost). Never throws: an unreleased lease just expires. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    this.#caller?.removeEventListener("abort", this.#forwardAbort);
    if (this.#controller.signal.reason instanceof LeaseLostError) return;
    await this.#store.releaseLease(this.#lease).catch(() => undefined);
  }

  readonly #forwardAbort = () => this.#controller.abort(this.#caller?.reason);

  async #beat(): Promise<void> {
    if (this.#renewing || this.#released || this.#controller.signal.aborted) return;
    this.#renewing = true;
    const started = performance.now();
    try {
      this.#lease = await this.#store.renewLease(this.#lease, this.#ttlMs);
      this.#validUntil = started + this.#ttlMs;
    } catch (error) {
      if (this.#released) return;
      if (error instanceof LeaseLostError) this.#lose(error);
      else if (performance.now() >= this.#validUntil) {
        // The store could not be reached for a whole ttl: another process may have taken over.
        const detail = `it could not be renewed before it expired (${error instanceof Error ? error.message : String(error)})`;
        this.#lose(new LeaseLostError({ sessionId: this.#lease.sessionId, token: this.#lease.token, detail }));
      }
      // Otherwise a passing store failure: the next beat tries again.
    } finally {
      this.#renewing = false;
    }
  }

  #lose(error: LeaseLostError): void {
    clearInterval(this.#timer);
    this.#controller.abort(error);
  }
}

/** A lease owner naming this process (for whoever is refused) and unique per run. */
function newOwner(): string {
  let host = "unknown-host";
  try {
    host = nodeBuiltin<typeof import("node:os")>("node:os")?.hostname() ?? host;
  } catch {
    // Deno without --allow-sys refuses os.hostname(): the owner is still unique by its UUID.
  }
  return `${host}/${hostProcess()?.pid ?? 0}/${randomUuid()}`;
}
