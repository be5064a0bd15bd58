import type { Job } from "bullmq";
import type { QueuedOutcome } from "../agent/run-queue-port.js";
import { QueueArgumentError } from "../errors/fleet-errors.js";
import type { SessionStore } from "../store/session-store.js";
import { bullmq } from "./fleet-peers.js";
import { FAILURE_MARK } from "./job-outcome.js";
import { type AnyQueuedAgent, type JobStep, type LiveDeps, runJob } from "./job-run.js";
import { parsePayload, type RunPayload } from "./queue-payload.js";
import type { RunQueue } from "./run-queue.js";

/** Options of `runWorker`. */
export interface RunWorkerOptions {
  readonly queue: RunQueue;
  /** The agent whose runs this worker takes: runs submitted by an agent of another name are refused. */
  readonly agent: AnyQueuedAgent;
  /** Live deps (clients, keys) for each run: never in the queue, always from here. */
  readonly deps?: LiveDeps;
  /** Runs at once in this worker (default 4). */
  readonly concurrency?: number;
  /** Told of each run this worker starts and ends (a CLI prints them). */
  readonly onRun?: (event: WorkerRunEvent) => void;
}

/** What a worker tells `onRun`. */
export type WorkerRunEvent =
  | {
      readonly type: "started";
      readonly sessionId: string;
      readonly runId: string;
      readonly tenant: string;
      readonly waitedMs: number;
    }
  | { readonly type: "ended"; readonly sessionId: string; readonly runId: string; readonly outcome: QueuedOutcome }
  | { readonly type: "postponed"; readonly sessionId: string; readonly runId: string; readonly reason: string }
  | { readonly type: "error"; readonly sessionId?: string; readonly runId?: string; readonly error: unknown };

/** A running worker. */
export interface RunWorker {
  /** Runs going now. */
  readonly running: number;
  /** Stops taking runs and waits for those going to end (drain); then closes the connections. */
  close(): Promise<void>;
}

/**
 * Takes runs off `queue` and runs them with `agent`, `concurrency` at a time. Each run holds its
 * session's lease (the store fences every append with its token) and the queue's lock; when this
 * process dies, another worker takes the run over once both lapse (`leaseTtlMs`) and resumes it from
 * the log. Wake-ups for `agent.result` / `agent.follow` go out after each commit.
 *
 * @example
 * const worker = await runWorker({ queue, agent, deps: ({ tenant }) => ({ db: pools.get(tenant) }), concurrency: 8 });
 * process.on("SIGTERM", () => void worker.close()); // drain: finish what runs, take nothing new
 */
export async function runWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { queue, agent } = options;
  const concurrency = options.concurrency ?? 4;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new QueueArgumentError({ message: `concurrency must be a whole number ≥ 1, got ${concurrency}` });
  }
  await queue.prepareWorkers();
  const store = notifyingStore(
    queue.store,
    (sessionId, seq) => void queue.notify(sessionId, String(seq)).catch(() => undefined),
  );
  const onRun = options.onRun ?? (() => undefined);
  let running = 0;
  const context = {
    agent,
    store,
    liveDeps: options.deps,
    leaseTtlMs: queue.leaseTtlMs,
    isLive: async (runId: string) => {
      const state = await (await bullmq.Job.fromId(queue.engine, runId))?.getState();
      return state !== undefined && state !== "completed" && state !== "failed" && state !== "unknown";
    },
    checkBudget: (tenant: string) => queue.tenants.assertWithinBudget(tenant),
  };

  const processJob = async (job: Job<RunPayload, QueuedOutcome>, token?: string): Promise<QueuedOutcome> => {
    const payload = parsePayload(job.data);
    const { sessionId, runId, tenant } = payload;
    if (payload.agent !== (agent.name ?? null)) {
      throw new bullmq.UnrecoverableError(
        FAILURE_MARK +
          JSON.stringify({
            code: "agent_mismatch",
            message: `queued for agent "${payload.agent}", this worker runs "${agent.name}"`,
            fault: "user",
          }),
      );
    }
    const slot = await queue.tenants.enter(tenant, runId, queue.leaseTtlMs);
    if (slot === undefined)
      return postpone(job, token, Date.now() + 100 + Math.random() * 200, `tenant "${tenant}" is at its concurrency`);
    running++;
    onRun({ type: "started", sessionId, runId, tenant, waitedMs: Date.now() - payload.submittedAt });
    let step: JobStep;
    try {
      step = await runJob(payload, context);
    } catch (error) {
      onRun({ type: "error", sessionId, runId, error });
      throw error;
    } finally {
      running--;
      await slot.leave();
    }
    if (step.type === "later") return postpone(job, token, step.atMs, step.reason);
    await queue.tenants.spend(tenant, step.tokens);
    onRun({ type: "ended", sessionId, runId, outcome: step.outcome });
    return step.outcome;
  };

  const postpone = async (
    job: Job<RunPayload, QueuedOutcome>,
    token: string | undefined,
    atMs: number,
    reason: string,
  ): Promise<never> => {
    onRun({ type: "postponed", sessionId: job.data.sessionId, runId: job.data.runId, reason });
    await job.moveToDelayed(Math.round(atMs), token);
    throw new bullmq.DelayedError();
  };

  const connection = queue.connection();
  const worker = new bullmq.Worker<RunPayload, QueuedOutcome>(queue.name, processJob, {
    connection,
    concurrency,
    lockDuration: queue.leaseTtlMs,
    stalledInterval: queue.stalledCheckMs,
    maxStalledCount: 20,
  });
  worker.on("error", (error) => onRun({ type: "error", error }));
  // Waiters look again once the queue has the outcome (after the job is marked, not before).
  const ended = (job: Job<RunPayload, QueuedOutcome> | undefined) => {
    if (job !== undefined) void queue.notify(job.data.sessionId, "end").catch(() => undefined);
  };
  worker.on("completed", ended);
  worker.on("failed", ended);
  await worker.waitUntilReady();
  return {
    get running() {
      return running;
    },
    close: async () => {
      await worker.close();
      connection.disconnect();
    },
  };
}

/** The store, with `publish(sessionId, lastSeq)` after each append that committed. */
function notifyingStore(store: SessionStore, publish: (sessionId: string, seq: number) => void): SessionStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "append") {
        return async (...args: Parameters<SessionStore["append"]>) => {
          await target.append(...args);
          publish(args[0], args[1].at(-1)?.seq ?? 0);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
