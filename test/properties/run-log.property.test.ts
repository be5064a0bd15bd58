/**
 * The log is the product, over random runs: scripted turns mixing sequential and parallel calls,
 * code-mode programs (loops, Promise.all, caught and uncaught nested failures, nested approvals),
 * sub-agents and failing tools, on the memory, SQLite and PostgreSQL stores. After every run:
 * `projectDeps(log) == deps`, `projectMessages(log) == messages`, the store holds exactly the log,
 * and every event is attributed to the call that caused it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { decideApproval, listPendingApprovals } from "../../src/approvals/approvals.js";
import { ApprovalPendingError } from "../../src/errors/run-errors.js";
import type { RunResult } from "../../src/runner/types.js";
import type { SessionEvent } from "../../src/session/events.js";
import { projectDeps } from "../../src/session/projections.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { DATABASE_URL, dropSchema, postgresReachable } from "../../src/store/test-support/postgres-server.js";
import { checkProjections } from "../../src/test-support/run-checked.js";
import { agentFor, type Deps, decisionFor, type Plan, plans } from "./run-scenario.js";

interface CallData {
  readonly toolCallId?: string;
  readonly parentToolCallId?: string;
  readonly toolName?: string;
  readonly isError?: boolean;
  readonly operations?: readonly { op: string; key?: string; item?: unknown }[];
}

const dataOf = (event: SessionEvent) => event.data as CallData;
const scale = Number(process.env.NOUS_PROPERTY_SCALE ?? 1);
/** Pauses decided through the store, over all runs: the paused path must really be taken. */
let pausesDecided = 0;

/**
 * Every event is attributed to the call that caused it: a call's update, result and nested calls
 * sit between its intent and its result; an update appends its own call's id, and nothing else does.
 */
function checkAttribution(log: readonly SessionEvent[]): void {
  const opened = new Set<string>();
  const closed = new Set<string>();
  const recorded: string[] = [];
  for (const event of log) {
    const data = dataOf(event);
    const id = data.toolCallId;
    if (data.parentToolCallId !== undefined && id !== undefined) {
      // A nested event happens while its parent call is open (a child's run_started names its parent's call: no id).
      expect(opened.has(data.parentToolCallId), `${event.type} ${id} inside ${data.parentToolCallId}`).toBe(true);
      expect(closed.has(data.parentToolCallId)).toBe(false);
      expect(id?.startsWith(`${data.parentToolCallId}.`)).toBe(true);
    }
    switch (event.type) {
      case "tool_call":
        if (id !== undefined) opened.add(id);
        break;
      case "context_update": {
        if ((event.data as { origin?: string }).origin === "initial") break;
        expect(id, "a context_update names its call").toBeDefined();
        if (id === undefined) break;
        expect(opened.has(id) && !closed.has(id), `update of ${id} while it is open`).toBe(true);
        for (const operation of data.operations ?? []) {
          if (operation.op === "append" && operation.key === "trail") {
            expect(operation.item, "the update is the one its call made").toBe(id);
            recorded.push(id);
          }
        }
        break;
      }
      case "tool_result":
      case "tool_call_result":
        if (id !== undefined) {
          expect(opened.has(id) || closed.has(id) || data.isError === true, `result of ${id} after its intent`).toBe(
            true,
          );
          closed.add(id);
        }
        break;
      default:
        break;
    }
  }
  // Every intent has its result: nothing is left open in a finished run.
  for (const id of opened) expect(closed.has(id), `${id} has a result`).toBe(true);
}

type StoreKind = "memory" | "sqlite" | "postgres";

/** The trail a log's recorded updates append, in log order. */
function appendedTrail(log: readonly SessionEvent[]): unknown[] {
  return log
    .filter((event) => event.type === "context_update")
    .flatMap((event) => (dataOf(event).operations ?? []).filter((item) => item.op === "append" && item.key === "trail"))
    .map((operation) => operation.item);
}

/**
 * Plays a plan to its end. With `inline`, a handler decides approvals during the run; otherwise
 * the run pauses, every pending request (a nested one, or a sub-agent's, listed with its path from
 * the root) is decided through the store, and the run is resumed until it completes.
 */
async function play(plan: Plan, inline: boolean, store: SessionStore, sessionId: string, initial: Deps) {
  const agent = agentFor(plan, inline);
  let attempt = (): Promise<RunResult<string, Deps>> => agent.run("go", { sessionId, store, deps: initial });
  for (let pauses = 0; pauses < 50; pauses++) {
    try {
      return await attempt();
    } catch (error) {
      if (inline || !(error instanceof ApprovalPendingError)) throw error;
      const pending = await listPendingApprovals(store);
      expect(pending.length, "a paused run has something to decide").toBeGreaterThan(0);
      for (const approval of pending) {
        if (approval.sessionId !== sessionId) expect(approval.path?.[0]?.sessionId).toBe(sessionId);
        await decideApproval(store, approval, decisionFor(approval.args));
        pausesDecided += 1;
      }
      attempt = () => agent.resume(sessionId, { store, deps: initial });
    }
  }
  throw new Error("the run kept pausing");
}

async function property(kind: StoreKind, openStore: () => Promise<SessionStore>, runs: number): Promise<void> {
  let count = 0;
  await fc.assert(
    fc.asyncProperty(plans, fc.boolean(), async (plan, inline) => {
      const store = await openStore();
      const sessionId = `${kind}-${++count}`;
      try {
        const initial: Deps = { trail: [] };
        const result = await play(plan, inline, store, sessionId, initial);
        checkProjections(result, initial);
        checkAttribution(result.log);
        // The trail is the fold of the recorded updates, in log order.
        expect(result.deps.trail).toEqual(appendedTrail(result.log));
        // The store holds exactly the log the run returned.
        const stored = await store.read(sessionId);
        expect(stored.map(({ sessionId: _id, ...event }) => event)).toEqual(
          result.log.map(({ sessionId: _id, ...event }) => event),
        );
        // Each sub-agent's own session keeps the same truths.
        const children = new Set(
          result.log
            .filter((event) => event.type === "subagent_completed" || event.type === "subagent_failed")
            .map((event) => (event.data as { childSessionId?: string }).childSessionId),
        );
        for (const child of children) {
          if (child === undefined) continue;
          const log = await store.read(child);
          checkAttribution(log);
          expect(projectDeps(log, { trail: [] }).trail).toEqual(appendedTrail(log));
        }
        expect(await listPendingApprovals(store, { sessionId })).toEqual([]);
      } finally {
        if (kind !== "memory") await store.close?.();
      }
    }),
    { numRuns: Math.max(1, Math.round(runs * scale)), endOnFailure: true },
  );
}

describe("random runs keep the log true (memory store)", () => {
  it("projectDeps(log) == deps, projectMessages(log) == messages, every event attributed to its call", async () => {
    await property("memory", async () => new MemoryStore(), 40);
    expect(pausesDecided, "some runs paused for approval and were resumed").toBeGreaterThan(0);
  }, 240_000);
});

describe("random runs keep the log true (SQLite store)", () => {
  const dir = mkdtempSync(join(tmpdir(), "nous-property-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("projectDeps(log) == deps, projectMessages(log) == messages, every event attributed to its call", async () => {
    const path = join(dir, "sessions.db");
    await property("sqlite", async () => new SqliteStore({ path }), 20);
  }, 240_000);
});

const reachable = await postgresReachable("PostgreSQL property suite");
describe.runIf(reachable)("random runs keep the log true (PostgreSQL store)", () => {
  const schema = `nous_property_${process.pid}_${Date.now().toString(36)}`;
  afterAll(() => dropSchema(schema));
  it("projectDeps(log) == deps, projectMessages(log) == messages, every event attributed to its call", async () => {
    await property("postgres", () => PostgresStore.connect(DATABASE_URL, { schema, poolSize: 2 }), 12);
  }, 240_000);
});
