/**
 * `nous/fleet`: runs queued by `agent.submit` and run by a fleet of workers, on BullMQ and Redis
 * (optional peers: `npm install bullmq@6 ioredis@5`). See the README's "Fleet" section.
 *
 * @example
 * import { runQueue, runWorker } from "nous/fleet";
 * const queue = runQueue({ store });
 * const agent = new Agent({ model, queue });
 * await runWorker({ queue, agent, concurrency: 8 });
 */
export type { LiveDeps } from "./fleet/job-run.js";
export { type RedisLocation, RunQueue, type RunQueueOptions, runQueue } from "./fleet/run-queue.js";
export { type RunWorker, type RunWorkerOptions, runWorker, type WorkerRunEvent } from "./fleet/run-worker.js";
export type { TenantLimits, TenantSettings } from "./fleet/tenant-limits.js";
