// The agent `bench/fleet.bench.mjs` runs on a fleet of `nous worker` processes, written as a
// user's agent file (plain ESM against the built package: run `npm run build` first). One run =
// two requests to the mock model server (bench/peers/mock-server.ts, model `mock-k1`): a call of
// the idempotent `add` tool, then the answer. A run's state deps may set `sleepMs` (the failover
// series makes slow runs). Env: FLEET_BENCH_BASE_URL, FLEET_BENCH_SCHEMA, FLEET_BENCH_QUEUE,
// FLEET_BENCH_LEASE_MS and FLEET_BENCH_STALLED_MS (unset: runQueue's defaults),
// FLEET_BENCH_GROUP_COMMIT=1 (the store's group commit), DATABASE_URL.
import { setTimeout as sleep } from "node:timers/promises";
import { runQueue } from "../dist/fleet.js";
import { Agent, createOpenAICompatibleModel, tool } from "../dist/index.js";
import { PostgresStore } from "../dist/postgres.js";

const env = process.env;
const numberOf = (value) => (value === undefined || value === "" ? undefined : Number(value));

const add = tool({
  name: "add",
  description: "Add two numbers",
  idempotent: true,
  input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: async ({ a, b }, context) => {
    const ms = context.deps.sleepMs ?? 0;
    if (ms > 0) await sleep(ms);
    return a + b;
  },
});

/** The bench agent on queue `name` (the bench process builds one per phase to submit with). */
export function fleetAgent({ store, name, baseURL, leaseTtlMs, stalledCheckMs }) {
  const queue = runQueue({ store, name, leaseTtlMs, stalledCheckMs });
  const model = createOpenAICompatibleModel("custom", "mock-k1", { baseURL });
  return new Agent({ name: "fleet-bench", model, instructions: "You add numbers.", tools: [add], queue });
}

/** The store of the bench's throwaway schema. */
export function connectStore() {
  const url = env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const groupCommit = env.FLEET_BENCH_GROUP_COMMIT === "1";
  return PostgresStore.connect(url, { schema: env.FLEET_BENCH_SCHEMA ?? "nous_fleet_bench", groupCommit });
}

const isWorker = env.FLEET_BENCH_QUEUE !== undefined;

export default isWorker
  ? fleetAgent({
      store: await connectStore(),
      name: env.FLEET_BENCH_QUEUE,
      baseURL: env.FLEET_BENCH_BASE_URL,
      leaseTtlMs: numberOf(env.FLEET_BENCH_LEASE_MS),
      stalledCheckMs: numberOf(env.FLEET_BENCH_STALLED_MS),
    })
  : undefined;

/** Live deps: the worker's pid, so a run's tool knows where it ran. */
export function deps() {
  return { worker: process.pid };
}
