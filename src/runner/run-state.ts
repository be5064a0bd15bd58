import { applyFolded, type ContextUpdate } from "../context/context-update.js";
import { foldOwned } from "../context/reducer.js";
import { noCost, type RunCost } from "../cost/recorded-cost.js";
import { ApprovalPendingError } from "../errors/run-errors.js";
import type { Model, ModelCallNotice } from "../models/model.js";
import { sha256Hex } from "../platform/sha256.js";
import type { AgentContext } from "../session/agent-context.js";
import type { SessionEvent } from "../session/events.js";
import { RunContext } from "../session/run-context.js";
import type { RunSeam } from "../session/run-seam.js";
import type { Usage } from "../session/usage.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentStreamEvent, StreamedLogEvent } from "./agent-stream-event.js";
import type { Emit } from "./event-channel.js";
import type { NestedJournalEntry } from "./nested-journal.js";
import type { OutputSpec } from "./output-spec.js";
import type { AgentHooks, AgentOptions, UsageLimits } from "./types.js";

const NO_PAUSE = { pause: false } as const;

/**
 * `event` as the stream delivers it (`kind: "event"` first, then its own fields). A literal of one
 * shape rather than a spread: this runs for every event of every streaming run.
 */
function streamedEvent(event: SessionEvent): StreamedLogEvent {
  if (event.sessionId !== undefined || event.runId !== undefined) return { kind: "event", ...event };
  return { kind: "event", seq: event.seq, at: event.at, type: event.type, data: event.data } as StreamedLogEvent;
}

/** Everything fixed for the length of one run. */
export interface RunConfig<D extends object, O> {
  readonly runId: string;
  /** The agent's definition hash (`Agent.identity`), recorded in `run_started`. */
  readonly agentHash?: string;
  readonly model: Model;
  readonly tools: ReadonlyMap<string, AnyTool<D>>;
  readonly output: OutputSpec<O> | undefined;
  readonly options: AgentOptions<D, O>;
  readonly hooks: AgentHooks<D>;
  readonly limits: UsageLimits;
  readonly maxIterations: number;
  readonly outputRetries: number;
  /** Where a streaming run sends its events (resolves when the reader wants the next); `run()` has none, so none are made. */
  readonly emit: Emit<AgentStreamEvent> | undefined;
  readonly signal: AbortSignal | undefined;
  /** Where events are committed as the run goes; absent for a run without a session store. */
  readonly persistence: RunPersistence | undefined;
  readonly sessionId: string | undefined;
  /** Settles in-doubt calls of non-idempotent tools on resume; without it they stop the run. */
  readonly resolveInDoubt: InDoubtResolver<D> | undefined;
  /** Sub-agent nesting depth (0 for a top-level run). */
  readonly depth: number;
  /** The session store (opaque to the runner), handed to nested runs through the seam. */
  readonly store: object | undefined;
  /** The parent run's session and tool call, when this run is a sub-agent (recorded in `run_started`). */
  readonly parent: { readonly sessionId?: string; readonly runId?: string; readonly toolCallId: string } | undefined;
}

/**
 * What to do with a call that may or may not have run: run it again (with the arguments of its
 * recorded intent), or record a result for it — with the state change it made, when it made one.
 *
 * @example
 * const decision: InDoubtDecision<Deps> = {
 *   type: "result",
 *   result: { charged: 50 },
 *   update: ContextUpdate.new<Deps>().append("payments", { amount: 50 }),
 * };
 */
export type InDoubtDecision<D extends object = Record<string, unknown>> =
  | { readonly type: "rerun" }
  | {
      readonly type: "result";
      readonly result: unknown;
      readonly isError?: boolean;
      /** Folded into deps and recorded as the call's `context_update`, as if the tool had returned it. */
      readonly update?: ContextUpdate<D>;
    };

/** Settles an in-doubt call; `args` are the arguments its recorded intent ran with (the decided ones). */
export type InDoubtResolver<D extends object = Record<string, unknown>> = (call: {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
}) => InDoubtDecision<D> | Promise<InDoubtDecision<D>>;

/** Commits new events durably, in order; resolves only once they are committed. */
export interface RunPersistence {
  commit(events: readonly SessionEvent[]): Promise<void>;
  /**
   * Called once the run has committed its last event (completed, failed or paused): it lets the
   * session go (a session run releases its lease), before the caller sees the run's end.
   */
  end?(): Promise<void>;
}

/** What a resumed run already knows about the tool calls of its last turn. */
export interface ResumeInfo {
  /** Calls whose intent was recorded but whose result was not: they may or may not have run. */
  readonly inDoubt: ReadonlySet<string>;
  /** The arguments each recorded intent ran with (after approval edits and hooks), by tool-call id. */
  readonly intentArgs: ReadonlyMap<string, unknown>;
  /** Approval decisions already recorded, by tool-call id. */
  readonly decided: ReadonlyMap<string, { approved: boolean; args?: unknown; reason?: string }>;
  /** Approvals requested and not yet decided (top-level and nested calls). */
  readonly pending: ReadonlySet<string>;
  /**
   * Open calls that paused the run — a nested call of theirs, or their sub-agent, waits for approval
   * — by id: they run again on resume (nested calls replay, a sub-agent resumes its child); not in doubt.
   */
  readonly paused?: ReadonlySet<string>;
  /** The nested calls of the turn, by id: a re-run parent replays them from here (see `Tool.replayable`). */
  readonly nested?: ReadonlyMap<string, NestedJournalEntry>;
}

/**
 * The loop's moving parts. The context (log, deps) itself is immutable; the state holds the current
 * one. Every event the run records goes through `context` transitions made here and in the stages.
 */
export class RunState<D extends object, O> {
  context: AgentContext<D>;
  usage: Usage;
  /** What the run cost so far, its sub-agents included. */
  cost: RunCost = noCost;
  iteration = 0;
  outputFailures = 0;
  /** Consecutive failures of each tool (invalid arguments, `ToolRetryError`); a success resets them. */
  readonly toolFailures = new Map<string, number>();
  /** Consecutive calls naming an unknown tool, all names together (see `unknownTool`). */
  unknownToolCalls = 0;
  resume: ResumeInfo | undefined;
  /** The tool-definition hashes the session's log holds: read once per run (see `recordRequest`). */
  knownToolHashes: Set<string> | undefined;
  /** The model a fallback chain moved to during the request in flight (`"provider:model"`); priced by it. */
  fallbackTo: string | undefined;
  /** Records the retries and fallbacks of this run's requests (see `noticeRecorder`). */
  noticeRecorder: ((notice: ModelCallNotice) => Promise<void> | undefined) | undefined;
  /** Ids of journaled nested calls a replay has reached (the rest, at the parent's end, is a divergence). */
  readonly replayedNested = new Set<string>();
  /** Set when a nested call must stop the run (in doubt, diverged, not committed); see `halt`. */
  #halted: Error | undefined;
  /** Calls whose tool the halt was thrown into: they end with it, whatever the tool made of it. */
  readonly #reached = new Set<string>();
  /** Events the store has acknowledged, and events sent or queued to it (the log's first n). */
  #committed: number;
  #queued: number;
  /** The last commit asked for: each one starts after the one before it is committed. */
  #tail: Promise<void> | undefined;
  #seam: RunSeam | undefined;
  /** Events of the log handed to the stream (the log's first n); see `publish`. */
  #published: number;
  /** The stream's reader has not asked for the event the run paused at yet. */
  #pausing: Promise<void> | undefined;
  /** Ends `#pausing` (one function per run, not one per pause: `publish` runs at every step). */
  readonly #endPause = (): void => {
    this.#pausing = undefined;
  };

  /** What this run's folds built and no one has read since: written in place by the next fold. */
  #owned = new WeakSet<object>();
  readonly #forgetOwned = () => {
    this.#owned = new WeakSet<object>();
  };

  constructor(
    readonly config: RunConfig<D, O>,
    context: AgentContext<D>,
  ) {
    this.context = context;
    this.usage = context.usage;
    this.#committed = context.log.length;
    this.#queued = this.#committed;
    this.#published = this.#committed;
  }

  /** Gives the run the seam its tools call nested tools through (built by `createSeam`, which needs the state). */
  attachSeam(seam: RunSeam): void {
    this.#seam = seam;
  }

  /** Marks the first `count` events of the log as already committed (they came from the store). */
  markCommitted(count: number): void {
    this.#committed = count;
    this.#queued = count;
    this.#published = count;
  }

  /**
   * Hands every event recorded since the last call to the stream, in seq order (a run without a
   * stream has nothing to do: `undefined`). With `pause`, the run waits at the last of them until
   * the reader asks for the next event (backpressure); rejects with `ConsumerStoppedError` when the
   * reader stopped. Returns `undefined` when there is nothing to wait for.
   */
  publish(pause: boolean): Promise<void> | undefined {
    const emit = this.config.emit;
    if (emit === undefined) return undefined;
    const log = this.context.log;
    const end = log.length;
    let waiting: Promise<void> | undefined;
    for (let index = this.#published; index < end; index++) {
      const event = streamedEvent(log.at(index) as SessionEvent);
      // One pause at a time (concurrent nested calls publish too): a second one waits for the first.
      if (pause && index === end - 1 && this.#pausing === undefined) waiting = emit(event);
      else emit(event, NO_PAUSE);
    }
    this.#published = end;
    if (waiting !== undefined) {
      this.#pausing = waiting;
      waiting.then(this.#endPause, this.#endPause);
      return waiting;
    }
    return pause ? this.#pausing : undefined;
  }

  /**
   * Commits every event recorded since the last commit; resolves once the store has them and every
   * event recorded before. Commits are chained: one may be asked for while another is in flight (a
   * nested call of a program, parallel tool calls), and each batch is sent only after the one before
   * it is committed, so no event is sent twice or out of order; a failed batch fails every batch
   * queued behind it, and the next commit starts again from what the store has. Returns `undefined` when there is nothing to wait for (no persistence, or
   * everything committed), so the hot path of a run without a store skips an await:
   * `const committing = state.commit(); if (committing) await committing;`.
   */
  commit(): Promise<void> | undefined {
    const persistence = this.config.persistence;
    if (persistence === undefined) return undefined;
    const log = this.context.log;
    if (log.length === this.#queued) return this.#committed === this.#queued ? undefined : this.#tail;
    const events: SessionEvent[] = [];
    for (let index = this.#queued; index < log.length; index++) events.push(log.at(index) as SessionEvent);
    const end = log.length;
    this.#queued = end;
    const previous = this.#tail;
    const sent = previous === undefined ? persistence.commit(events) : previous.then(() => persistence.commit(events));
    const tail: Promise<void> = sent.then(
      () => {
        this.#committed = end;
      },
      (error: unknown) => {
        // The last batch of a failed chain: a later commit starts again from what the store has.
        if (this.#tail === tail) {
          this.#queued = this.#committed;
          this.#tail = undefined;
        }
        throw error;
      },
    );
    this.#tail = tail;
    return tail;
  }

  /**
   * Stops the run from inside a tool: a nested call that is in doubt, diverged from the log or could
   * not commit its intent. The calling tool may catch what it is thrown (code mode turns it into a
   * program error), so the run rethrows the first such error as soon as the tool returns, and every
   * later nested call is refused with it. Returns the error to throw.
   */
  halt(error: unknown): unknown {
    const halted = this.#halted;
    if (halted instanceof ApprovalPendingError && error instanceof ApprovalPendingError) {
      // Concurrent nested calls waiting for approval: the run pauses once, waiting for all of them.
      this.#halted = new ApprovalPendingError([...halted.pending, ...error.pending]);
      return error;
    }
    this.#halted ??= error instanceof Error ? error : new Error(String(error));
    return error;
  }

  /**
   * Throws the error the run was halted with, if any. Given a call id, only when the halt reached
   * that call (see `haltReached`): a parallel call that made no nested call keeps its own outcome.
   */
  throwIfHalted(toolCallId?: string): void {
    if (this.#halted === undefined) return;
    if (toolCallId === undefined || this.#reached.has(toolCallId)) throw this.#halted;
  }

  /** The halt was thrown into the tool of this call (a nested call of it stopped, or its sub-agent paused). */
  haltReached(toolCallId: string): void {
    if (this.#halted !== undefined) this.#reached.add(toolCallId);
  }

  /**
   * The current deps are handed to code that may keep them while the run folds more updates (a
   * nested call's parent, the other calls of a parallel turn): from now on the run copies before it
   * writes, so what they hold never changes under them.
   */
  shareDeps(): void {
    this.#forgetOwned();
  }

  /** The run will write nothing more: lets its session go (see `RunPersistence.end`). */
  async end(): Promise<void> {
    await this.config.persistence?.end?.();
  }

  /** Records a bookkeeping event. */
  record(type: string, data: unknown): void {
    this.context = this.context.logEvent(type, data);
  }

  /**
   * Folds an update into deps through the one reducer and records it, as `ContextUpdate.apply`
   * does (throws, changing nothing, on a bad update), but writing in place what this run built and
   * no one has read, so an append to a long list stays O(1).
   */
  applyUpdate(update: ContextUpdate<D>, source: { toolCallId: string; toolName: string }): void {
    this.context = applyFolded(
      update,
      this.context,
      source,
      (deps) => foldOwned(deps, update.operations(), this.#owned) as D,
    );
  }

  /** A call of `toolName` ran and succeeded: the retry budgets count consecutive failures, so both restart. */
  toolSucceeded(toolName: string): void {
    this.toolFailures.delete(toolName);
    this.unknownToolCalls = 0;
  }

  /** The context a tool or hook receives. */
  runContext(call?: { toolCallId: string; toolName: string; signal?: AbortSignal; deps?: D }): RunContext<D> {
    return RunContext.create({
      deps: call?.deps ?? this.context.deps,
      retry: call ? (this.toolFailures.get(call.toolName) ?? 0) : this.outputFailures,
      usage: this.usage,
      signal: call?.signal ?? this.config.signal,
      toolCallId: call?.toolCallId,
      toolName: call?.toolName,
      runId: this.config.runId,
      sessionId: this.config.sessionId,
      idempotencyKey: call ? this.idempotencyKey(call.toolCallId) : undefined,
      seam: this.#seam,
      // Whoever reads deps may keep them: from then on the run copies before it writes.
      onDepsRead: this.#forgetOwned,
    });
  }

  /**
   * A key that stays the same for one tool call across retries, crashes and resumes. Hashed only for
   * session runs (the only ones that resume); otherwise run and call id are unique enough and free.
   */
  idempotencyKey(toolCallId: string): string {
    if (this.config.sessionId === undefined) return `${this.config.runId}:${toolCallId}`;
    const source = `${this.config.sessionId ?? ""}\u0000${this.config.runId}\u0000${toolCallId}`;
    return sha256Hex(source).slice(0, 32);
  }
}
