import type { Agent } from "../agent/agent.js";
import { inDoubtCalls } from "../agent/in-doubt-calls.js";
import type { QueuedOutcome } from "../agent/run-queue-port.js";
import type { PendingToolCall } from "../errors/run-errors.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import { projectRunUsage } from "../session/projections.js";
import type { Usage } from "../session/usage.js";
import type { SessionStore } from "../store/session-store.js";
import { outcomeOfLog } from "./job-outcome.js";
import type { RunPayload } from "./queue-payload.js";

/** Live deps for a run: what the agent file's `deps({ sessionId, tenant })` returns. */
export type LiveDeps = (context: { readonly sessionId: string; readonly tenant: string }) => unknown;

// biome-ignore lint/suspicious/noExplicitAny: a worker runs agents of every deps and output type
export type AnyQueuedAgent = Agent<any, any>;

/** What running a job comes to: an outcome, or "try again at" (the session is held by a live lease). */
export type JobStep =
  | { readonly type: "ended"; readonly outcome: QueuedOutcome; readonly tokens: number }
  | { readonly type: "later"; readonly atMs: number; readonly reason: string };

export interface JobContext {
  readonly agent: AnyQueuedAgent;
  readonly store: SessionStore;
  readonly liveDeps: LiveDeps | undefined;
  readonly leaseTtlMs: number;
  /** Whether another run of the queue is still queued or going (a run started by an earlier job). */
  readonly isLive: (runId: string) => Promise<boolean>;
  /** Refuses a fresh run when the tenant's budget is spent (throws the typed error). */
  readonly checkBudget: (tenant: string) => Promise<void>;
}

/**
 * Runs one queued run, from wherever its log says it is: not started (a new run with the job's
 * run id), started and unfinished (a worker died: `agent.resume` under the in-doubt rules), or
 * already ended (a worker died after the run's last commit: nothing runs again).
 */
export async function runJob(payload: RunPayload, context: JobContext): Promise<JobStep> {
  const { agent, store, leaseTtlMs } = context;
  const { sessionId, runId, tenant } = payload;
  const events = await store.read(sessionId);
  const span = lastRun(events, runId);
  if (span?.end !== undefined) return ended(outcomeOfLog(runId, events), events, runId);
  const live = ((await context.liveDeps?.({ sessionId, tenant })) ?? {}) as Record<string, unknown>;
  const lease = { ttlMs: leaseTtlMs };
  let usage: Usage;
  try {
    if (span !== undefined) {
      usage = (await agent.resume(sessionId, { store, deps: live, lease })).usage;
    } else {
      const other = lastRun(events);
      if (other !== undefined && other.end === undefined && (await context.isLive(other.runId))) {
        return { type: "later", atMs: Date.now() + 250, reason: `run ${other.runId} of the session goes first` };
      }
      await context.checkBudget(tenant);
      const deps = { ...payload.deps, ...live };
      usage = (await agent.run(payload.prompt, { sessionId, runId, store, deps, lease })).usage;
    }
    // A resumed run's usage counts from its start, so this is the whole run's.
    return { type: "ended", outcome: { type: "completed", runId }, tokens: usage.inputTokens + usage.outputTokens };
  } catch (error) {
    // Errors are told by their stable code: an agent file may load another copy of Nous than the worker's.
    const failure = (error ?? {}) as {
      code?: unknown;
      reason?: unknown;
      heldUntil?: unknown;
      pending?: unknown;
      fault?: unknown;
    };
    if (failure.code === "session_conflict" && failure.reason === "lease_held") {
      const until = typeof failure.heldUntil === "string" ? Date.parse(failure.heldUntil) : Number.NaN;
      const atMs = Number.isFinite(until) ? Math.max(until + 20, Date.now() + 20) : Date.now() + leaseTtlMs;
      return { type: "later", atMs, reason: "the session is held by a live lease" };
    }
    if (failure.code === "lease_lost") throw error; // another worker has the run now
    const after = await store.read(sessionId);
    if (failure.code === "tool_in_doubt") {
      return ended({ type: "in_doubt", runId, calls: inDoubtCalls(after, agent) }, after, runId);
    }
    if (failure.code === "approval_pending") {
      const pending = failure.pending as readonly PendingToolCall[];
      return ended({ type: "awaiting_approval", runId, pending }, after, runId);
    }
    const typed = typeof failure.code === "string" && typeof failure.fault === "string";
    if (lastRun(after, runId)?.end === "failed" || (typed && failure.fault !== "store")) {
      const { code, message, fault } = describe(error);
      return ended({ type: "failed", runId, code, message, fault }, after, runId);
    }
    throw error; // a passing failure (store, network): the queue tries again with backoff
  }
}

function ended(outcome: QueuedOutcome, events: readonly SessionEvent[], runId: string): JobStep {
  const span = lastRun(events, runId);
  const usage = span === undefined ? undefined : projectRunUsage(events.slice(span.start));
  return { type: "ended", outcome, tokens: usage === undefined ? 0 : usage.inputTokens + usage.outputTokens };
}

function describe(error: unknown): { code: string; message: string; fault?: string } {
  const { code, fault } = (error ?? {}) as { code?: unknown; fault?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === "string" && typeof fault === "string") return { code, message, fault };
  return { code: "error", message };
}
