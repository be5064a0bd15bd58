import { type ErrorFault, NousError, UserError } from "./nous-error.js";

/**
 * `submit` was refused because the queue already holds `maxDepth` runs waiting to start. Nothing
 * was queued; submit again later (backpressure).
 *
 * @example
 * try { await agent.submit("hi", { sessionId: "u42" }) } catch (error) {
 *   if (error instanceof QueueFullError) res.status(503).set("retry-after", "5").end();
 * }
 */
export class QueueFullError extends NousError {
  readonly code = "queue_full";
  readonly fault = "limit" as const;
  readonly queue: string;
  /** Runs waiting when the submit was refused. */
  readonly depth: number;
  readonly maxDepth: number;

  constructor(fields: { queue: string; depth: number; maxDepth: number }) {
    super({
      message: `Queue "${fields.queue}" is full (${fields.depth} runs waiting, maxDepth ${fields.maxDepth}); nothing was queued, submit again later`,
    });
    this.queue = fields.queue;
    this.depth = fields.depth;
    this.maxDepth = fields.maxDepth;
  }
}

/**
 * The queue's Redis could not be reached (or failed) while submitting: the run may not be queued.
 * Submit again once Redis is back.
 *
 * @example
 * try { await agent.submit("hi", { sessionId: "u42" }) } catch (error) {
 *   if (error instanceof QueueUnavailableError) res.status(503).end();
 * }
 */
export class QueueUnavailableError extends NousError {
  readonly code = "queue_unavailable";
  readonly fault = "store" as const;
  readonly queue: string;

  constructor(fields: { queue: string; cause: unknown }) {
    const reason = fields.cause instanceof Error ? fields.cause.message : String(fields.cause);
    super({
      message: `The queue "${fields.queue}" is unavailable (Redis: ${reason}); the run may not be queued`,
      cause: fields.cause,
    });
    this.queue = fields.queue;
  }
}

/**
 * A tenant has spent its usage budget: `submit` refuses its new runs, and a worker refuses to start
 * one that was queued before the budget ran out (nothing is recorded in its session then).
 *
 * @example
 * if (error instanceof TenantBudgetExceededError) console.log(error.tenant, error.used, error.budget);
 */
export class TenantBudgetExceededError extends NousError {
  readonly code = "tenant_budget_exceeded";
  readonly fault = "limit" as const;
  readonly tenant: string;
  /** Tokens the tenant's runs have used so far. */
  readonly used: number;
  /** The tenant's budget in tokens. */
  readonly budget: number;

  constructor(fields: { tenant: string; used: number; budget: number }) {
    super({
      message: `Tenant "${fields.tenant}" has used ${fields.used} of its ${fields.budget} tokens; its runs are refused until the budget is raised or reset`,
    });
    this.tenant = fields.tenant;
    this.used = fields.used;
    this.budget = fields.budget;
  }
}

/**
 * What `submit` was given cannot go in a queue: the payload is JSON and holds no secrets, so a
 * deps value at one of the agent's `secret` paths, or a value JSON cannot carry, is refused. Live
 * deps (clients, keys) come from the worker's `deps({ sessionId, tenant })` factory instead.
 *
 * @example
 * await agent.submit("hi", { sessionId: "u42", deps: { apiKey } }); // QueueArgumentError: secret path "apiKey"
 */
export class QueueArgumentError extends UserError {
  readonly code = "queue_argument";
}

/**
 * A queued run ended without an output: it failed (its `run_failed` event is in the log, `code`
 * and `message` are its error's), or a worker refused it before it started. `agent.result` throws it.
 *
 * @example
 * try { await agent.result("u42") } catch (error) {
 *   if (error instanceof QueuedRunFailedError) console.log(error.runCode); // "max_iterations_exceeded"
 * }
 */
export class QueuedRunFailedError extends NousError {
  readonly code = "queued_run_failed";
  /** The fault of the error the run failed with, when the worker reported it; else "internal". */
  readonly fault: ErrorFault;
  readonly sessionId: string;
  /** The `code` of the error the run failed with. */
  readonly runCode: string;

  constructor(fields: { sessionId: string; runCode: string; message: string; fault?: ErrorFault }) {
    super({ message: `The queued run of session "${fields.sessionId}" failed (${fields.runCode}): ${fields.message}` });
    this.fault = fields.fault ?? "internal";
    this.sessionId = fields.sessionId;
    this.runCode = fields.runCode;
  }
}
