import type { PendingToolCall } from "../errors/run-errors.js";
import type { SessionEvent } from "../session/events.js";
import type { UserContentPart } from "../session/messages.js";
import type { SessionStore } from "../store/session-store.js";

/** What `agent.submit` takes besides the prompt. Everything here travels as JSON in the queue. */
export interface SubmitOptions<D extends object = Record<string, unknown>> {
  /** The session the run continues or starts (default: a new UUID). */
  readonly sessionId?: string;
  /**
   * State deps for a new session (JSON only, nothing at the agent's `secret` paths); a worker adds
   * the live deps its `deps({ sessionId, tenant })` factory returns.
   */
  readonly deps?: Partial<D>;
  /** Whose run this is, for per-tenant concurrency and usage budgets (default "default"). */
  readonly tenant?: string;
  /** The queue to submit to instead of the agent's `queue` option. */
  readonly queue?: RunQueuePort;
}

/** Options of `agent.result` and `agent.follow`. */
export interface QueuedReadOptions {
  readonly signal?: AbortSignal;
  /** The queue the run was submitted to, instead of the agent's `queue` option. */
  readonly queue?: RunQueuePort;
}

/** A run accepted by a queue. `runId` is the id its `run_started` event will carry. */
export interface Submission {
  readonly sessionId: string;
  readonly runId: string;
  readonly queue: string;
  readonly tenant: string;
}

/** The agent as a queue sees it: what it checks a payload against. */
export interface QueuedAgent {
  readonly name: string | undefined;
  /** The agent's `secret` deps paths: a submit may not carry values there. */
  readonly secret: readonly string[];
}

/** How a queued run ended, as the worker that ran it (or the log) tells. */
export type QueuedOutcome =
  | { readonly type: "completed"; readonly runId: string }
  | {
      readonly type: "failed";
      readonly runId: string;
      readonly code: string;
      readonly message: string;
      readonly fault?: string;
    }
  /** `calls`: the calls in doubt, as `inDoubtCalls` lists them. */
  | { readonly type: "in_doubt"; readonly runId: string; readonly calls: readonly PendingToolCall[] }
  | { readonly type: "awaiting_approval"; readonly runId: string; readonly pending: readonly PendingToolCall[] };

/**
 * A run queue an agent submits to (`new Agent({ queue })`); `nous/fleet`'s `runQueue` is the one
 * Nous ships (BullMQ on Redis). The core never loads a queue engine itself.
 */
export interface RunQueuePort {
  readonly name: string;
  /** Where the queue's sessions live: workers run into it, `result` and `follow` read it. */
  readonly store: SessionStore;
  submit(
    agent: QueuedAgent,
    prompt: string | readonly UserContentPart[],
    options: Omit<SubmitOptions<object>, "queue">,
  ): Promise<Submission>;
  /** Waits until the session's latest submitted run has ended (or stopped for a decision). */
  wait(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<QueuedOutcome>;
  /** The session's events from `fromSeq` on, as they are committed, until its latest submitted run ends. */
  follow(
    sessionId: string,
    options?: { readonly fromSeq?: number; readonly signal?: AbortSignal },
  ): AsyncIterable<SessionEvent>;
}
