import { NousError } from "./nous-error.js";

/**
 * A run's lease on its session is gone: another run took the session over (its lease had expired
 * and the other owner acquired a newer token) or the lease was released. The holder of the stale
 * token can never append to the session again: a fenced append, a renewal, and the run itself fail
 * with this error, and nothing is written.
 *
 * @example
 * try {
 *   await agent.resume("s1", { store });
 * } catch (error) {
 *   if (error instanceof LeaseLostError) console.log(`session ${error.sessionId} moved on without us`);
 * }
 */
export class LeaseLostError extends NousError {
  readonly code = "lease_lost";
  readonly fault = "conflict" as const;
  readonly sessionId: string;
  /** The fencing token that is no longer current. */
  readonly token: number;

  constructor(fields: { sessionId: string; token: number; detail?: string }) {
    super({
      message: `The lease on session "${fields.sessionId}" (token ${fields.token}) was lost: ${fields.detail ?? "another run took the session over or the lease was released"}; this run can no longer write to the session`,
    });
    this.sessionId = fields.sessionId;
    this.token = fields.token;
  }
}
