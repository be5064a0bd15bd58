import type { QueuedAgent, QueuedOutcome, RunQueuePort, Submission, SubmitOptions } from "../agent/run-queue-port.js";
import { QueueArgumentError, QueueFullError, QueueUnavailableError } from "../errors/fleet-errors.js";
import { NousError } from "../errors/nous-error.js";
import { randomUuid } from "../platform/random-uuid.js";
import type { Prompt } from "../runner/types.js";
import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import { bullmq, Redis, type RedisClient } from "./fleet-peers.js";
import { outcomeOfJob } from "./job-outcome.js";
import { buildPayload, type RunPayload } from "./queue-payload.js";
import { SessionWatch, subscriberOf } from "./session-watch.js";
import { TenantLimiter, type TenantSettings } from "./tenant-limits.js";

/** How long a session's latest run id and a failed job are kept in Redis: a week. */
const RETENTION_S = 7 * 24 * 3600;

/** Where the queue's Redis is: a `redis://` URL or ioredis options. */
export type RedisLocation =
  | string
  | { readonly host?: string; readonly port?: number; readonly password?: string; readonly db?: number };

/** Options of `runQueue`. */
export interface RunQueueOptions {
  /** Where the queued sessions live (PostgreSQL for a fleet on several machines). */
  readonly store: SessionStore;
  /** The queue's name (default "nous-runs"); workers of one agent share one queue. */
  readonly name?: string;
  /** Redis (default: NOUS_REDIS_URL, else redis://127.0.0.1:6379). */
  readonly redis?: RedisLocation;
  /** Runs waiting to start past which `submit` is refused with `QueueFullError` (default: no cap). */
  readonly maxDepth?: number;
  /** Runs going at once over all workers of the queue (default: the sum of the workers' own). */
  readonly concurrency?: number;
  /**
   * How long a worker's hold on a run (its session lease and its queue lock) outlives the worker:
   * after a kill -9, another worker takes the run over within about this plus `stalledCheckMs`
   * (default 10,000).
   */
  readonly leaseTtlMs?: number;
  /** How often workers look for runs whose worker died (default: a fifth of `leaseTtlMs`, at most 5,000). */
  readonly stalledCheckMs?: number;
  /** Per-tenant concurrency and token budgets. */
  readonly tenants?: TenantSettings;
  /** Attempts of a run whose worker failed for a passing reason (store or Redis down), with backoff (default 10). */
  readonly attempts?: number;
}

/**
 * A run queue on BullMQ and Redis (see the README's "Fleet" section): `agent.submit` adds runs,
 * `runWorker` (or `nous worker`) runs them, `agent.result` and `agent.follow` read them back from
 * any process. Exclusivity comes from the store's session lease and its fencing token; Redis holds
 * the queue and wake-ups, never a secret or an event.
 *
 * @example
 * const queue = runQueue({ store: postgresStore({ connectionString }), maxDepth: 10_000, tenants: { concurrency: 4 } });
 * const agent = new Agent({ model, tools, queue });
 */
export function runQueue(options: RunQueueOptions): RunQueue {
  return new RunQueue(options);
}

export class RunQueue implements RunQueuePort {
  readonly name: string;
  readonly store: SessionStore;
  readonly leaseTtlMs: number;
  readonly stalledCheckMs: number;
  readonly tenants: TenantLimiter;
  readonly #options: RunQueueOptions;
  readonly #redis: RedisClient;
  readonly #queue: InstanceType<typeof bullmq.Queue>;
  #watch: SessionWatch | undefined;
  #globalSet: Promise<unknown> | undefined;

  constructor(options: RunQueueOptions) {
    const name = options.name ?? "nous-runs";
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(name)) {
      throw new QueueArgumentError({
        message: `queue name "${name}" is not valid: use 1 to 100 letters, digits and . _ -`,
      });
    }
    const leaseTtlMs = options.leaseTtlMs ?? 10_000;
    if (!Number.isSafeInteger(leaseTtlMs) || leaseTtlMs < 100) {
      throw new QueueArgumentError({ message: `leaseTtlMs must be a whole number of ms ≥ 100, got ${leaseTtlMs}` });
    }
    for (const key of ["maxDepth", "concurrency", "attempts"] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
        throw new QueueArgumentError({ message: `${key} must be a whole number ≥ 1, got ${value}` });
      }
    }
    this.name = name;
    this.store = options.store;
    this.leaseTtlMs = leaseTtlMs;
    this.stalledCheckMs = options.stalledCheckMs ?? Math.min(5_000, Math.max(50, Math.floor(leaseTtlMs / 5)));
    this.#options = options;
    this.#redis = connect(options.redis);
    this.#queue = new bullmq.Queue(name, { connection: this.#redis });
    this.#queue.on("error", () => undefined); // connection errors reach the calls that meet them
    this.tenants = new TenantLimiter(this.#redis, this.prefix, options.tenants);
  }

  /** The prefix of the fleet's own Redis keys and channels. */
  get prefix(): string {
    return `nous:${this.name}`;
  }

  /** A new Redis connection to the queue's server (workers and subscribers need their own). */
  connection(): RedisClient {
    // A worker blocks on Redis: its commands wait out a restart instead of failing.
    return quiet(this.#redis.duplicate({ maxRetriesPerRequest: null }));
  }

  /** The BullMQ queue underneath (for dashboards and metrics). */
  get engine(): InstanceType<typeof bullmq.Queue> {
    return this.#queue;
  }

  /** The Redis channel a session's wake-ups go to. */
  channelOf(sessionId: string): string {
    return `${this.prefix}:session:${sessionId}`;
  }

  async submit(agent: QueuedAgent, prompt: Prompt, options: SubmitOptions<object>): Promise<Submission> {
    const payload = buildPayload(agent, prompt, options, {
      sessionId: randomUuid(),
      runId: randomUuid(),
      now: Date.now(),
    });
    try {
      return await this.#enqueue(payload);
    } catch (error) {
      if (NousError.isInstance(error)) throw error;
      throw new QueueUnavailableError({ queue: this.name, cause: error });
    }
  }

  async #enqueue(payload: RunPayload): Promise<Submission> {
    await this.tenants.assertWithinBudget(payload.tenant);
    const maxDepth = this.#options.maxDepth;
    if (maxDepth !== undefined) {
      const depth = await this.depth();
      if (depth >= maxDepth) throw new QueueFullError({ queue: this.name, depth, maxDepth });
    }
    await this.#applyGlobalConcurrency();
    // Kept as long as a failed job is: after that, the session log alone tells how the run ended.
    await this.#redis.set(this.#latestKey(payload.sessionId), payload.runId, "EX", RETENTION_S);
    const attempts = this.#options.attempts ?? 10;
    await this.#queue.add("run", payload, {
      jobId: payload.runId,
      attempts,
      backoff: { type: "exponential", delay: 1_000 },
      removeOnComplete: { age: 24 * 3600, count: 100_000 },
      removeOnFail: { age: RETENTION_S },
    });
    return { sessionId: payload.sessionId, runId: payload.runId, queue: this.name, tenant: payload.tenant };
  }

  /** Runs waiting to start (waiting, delayed for a retry or a busy tenant, prioritized). */
  async depth(): Promise<number> {
    const counts = await this.#queue.getJobCounts("waiting", "delayed", "prioritized", "waiting-children");
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  /** The id of the latest run submitted to the session, if any. */
  async latestRun(sessionId: string): Promise<string | undefined> {
    return (await this.#redis.get(this.#latestKey(sessionId))) ?? undefined;
  }

  /** How the run ended, or undefined while it is queued or going. */
  async outcome(sessionId: string, runId: string): Promise<QueuedOutcome | undefined> {
    const job = await bullmq.Job.fromId<RunPayload, QueuedOutcome>(this.#queue, runId);
    return outcomeOfJob(job, runId, () => this.store.read(sessionId));
  }

  async wait(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<QueuedOutcome> {
    const runId = await this.#requireRun(sessionId);
    const waiter = await this.#watcher().open(this.channelOf(sessionId), 2_000, options?.signal);
    try {
      for (;;) {
        const outcome = await this.outcome(sessionId, runId);
        if (outcome !== undefined) return outcome;
        await waiter.next();
      }
    } finally {
      await waiter.close();
    }
  }

  async *follow(
    sessionId: string,
    options?: { readonly fromSeq?: number; readonly signal?: AbortSignal },
  ): AsyncGenerator<SessionEvent> {
    const runId = await this.#requireRun(sessionId);
    let fromSeq = options?.fromSeq ?? 1;
    const waiter = await this.#watcher().open(this.channelOf(sessionId), 1_000, options?.signal);
    try {
      for (;;) {
        // The outcome first: events read after a run was seen ended are all its events.
        const ended = (await this.outcome(sessionId, runId)) !== undefined;
        const events = await this.store.read(sessionId, { fromSeq });
        for (const event of events) {
          yield event;
          fromSeq = event.seq + 1;
        }
        if (ended) return;
        await waiter.next();
      }
    } finally {
      await waiter.close();
    }
  }

  /** Publishes a wake-up for the session's waiters (workers call it after each commit and at the end). */
  async notify(sessionId: string, message: string): Promise<void> {
    await this.#redis.publish(this.channelOf(sessionId), message);
  }

  /** Closes the queue's connections. Workers close their own. */
  async close(): Promise<void> {
    await this.#watch?.close();
    await this.#queue.close();
    this.#redis.disconnect();
  }

  /** Sets the queue-wide concurrency once, when the options give one. */
  async #applyGlobalConcurrency(): Promise<void> {
    const concurrency = this.#options.concurrency;
    if (concurrency === undefined) return;
    this.#globalSet ??= this.#queue.setGlobalConcurrency(concurrency);
    await this.#globalSet;
  }

  /** For workers: applies the options' queue-wide settings before taking runs. */
  async prepareWorkers(): Promise<void> {
    await this.#applyGlobalConcurrency();
  }

  async #requireRun(sessionId: string): Promise<string> {
    const runId = await this.latestRun(sessionId);
    if (runId === undefined) {
      throw new QueueArgumentError({
        message: `No run was submitted to session "${sessionId}" on queue "${this.name}"`,
      });
    }
    return runId;
  }

  #watcher(): SessionWatch {
    this.#watch ??= new SessionWatch(quiet(subscriberOf(this.#redis)));
    return this.#watch;
  }

  #latestKey(sessionId: string): string {
    return `${this.prefix}:session:${sessionId}:run`;
  }
}

function connect(location: RedisLocation | undefined): RedisClient {
  const where = location ?? process.env.NOUS_REDIS_URL ?? "redis://127.0.0.1:6379";
  // Submitting and reading fail soon when Redis is gone (QueueUnavailableError); workers wait (connection()).
  const common = { maxRetriesPerRequest: 2, lazyConnect: false };
  return quiet(typeof where === "string" ? new Redis(where, common) : new Redis({ ...where, ...common }));
}

/** A client whose connection errors reach its commands' callers only (not ioredis's "unhandled error" print). */
function quiet(client: RedisClient): RedisClient {
  client.on("error", () => undefined);
  return client;
}
