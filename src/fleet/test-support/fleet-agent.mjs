// Test fixture: the agent a fleet of `nous worker` processes runs, written as a user's agent file
// (plain ESM against the built package). The prompt says what a run does: "steps=3 charge=1
// sleep=40" makes the model call `lookup` (idempotent) steps times, `charge` (not idempotent) as
// the charge-th call, each tool sleeping 40 ms, then answer. Every tool effect is a row in
// <schema>.effects, written through the live deps the worker's factory gives (a pg pool).
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { runQueue } from "../../../dist/fleet.js";
import { Agent, tool } from "../../../dist/index.js";
import { PostgresStore } from "../../../dist/postgres.js";
import { FunctionModel } from "../../../dist/testing.js";

const env = process.env;
const schema = env.FLEET_SCHEMA ?? "nous_fleet";
const databaseUrl = env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, allowExitOnIdle: true });

async function effect(context, tool) {
  await context.deps.db.query(
    `insert into "${schema}".effects (session_id, tool_call_id, tool, pid) values ($1, $2, $3, $4)`,
    [context.sessionId, context.toolCallId, tool, process.pid],
  );
}

const input = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

const lookup = tool({
  name: "lookup",
  description: "Look a record up",
  idempotent: true,
  input,
  execute: async ({ n }, context) => {
    await sleep(context.deps.sleepMs);
    await effect(context, "lookup");
    return { n, found: true };
  },
});

const charge = tool({
  name: "charge",
  description: "Charge a card",
  input,
  execute: async ({ n }, context) => {
    await sleep(context.deps.sleepMs);
    await effect(context, "charge");
    return { n, charged: true };
  },
});

function plan(messages) {
  const text = messages.find((message) => message.role === "user")?.content;
  const prompt = typeof text === "string" ? text : "";
  const value = (key, fallback) => Number(new RegExp(`${key}=(\\d+)`).exec(prompt)?.[1] ?? fallback);
  return { steps: value("steps", 2), charge: value("charge", 0) };
}

const model = new FunctionModel((request) => {
  const { steps, charge: chargeAt } = plan(request.messages);
  const done = request.messages.filter((message) => message.role === "tool").length;
  if (done >= steps) return { text: `done after ${done} calls` };
  const name = done + 1 === chargeAt ? "charge" : "lookup";
  return { toolCalls: [{ id: `call_${done + 1}`, name, args: { n: done + 1 } }] };
});

export const store = await PostgresStore.connect(databaseUrl, { schema });

export const queue = runQueue({
  store,
  name: env.FLEET_QUEUE ?? "nous-fleet-test",
  leaseTtlMs: Number(env.FLEET_LEASE_MS ?? 2_000),
  stalledCheckMs: Number(env.FLEET_STALLED_MS ?? 500),
  tenants: env.FLEET_TENANT_CONCURRENCY ? { concurrency: Number(env.FLEET_TENANT_CONCURRENCY) } : undefined,
});

export default new Agent({ name: "fleet-test", model, tools: [lookup, charge], queue, maxIterations: 50 });

/** Live deps: never in the queue; `sleepMs` comes from the session's own state deps. */
export function deps({ sessionId, tenant }) {
  return { db: pool, worker: process.pid, sessionId, tenant };
}
