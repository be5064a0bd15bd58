import type { RunSeam } from "./run-seam.js";
import { emptyUsage, type Usage } from "./usage.js";

export interface RunContextOptions<D> {
  deps: D;
  retry?: number;
  usage?: Usage;
  signal?: AbortSignal;
  toolCallId?: string;
  toolName?: string;
  runId?: string;
  sessionId?: string;
  /** Stable across retries and resumes of one tool call: derived from session, run and call id. */
  idempotencyKey?: string;
  /** The handle back into the run (nested tool calls, usage); set by the runner. */
  seam?: RunSeam;
  /** Called on the first read of `deps` (the runner stops writing in place what the reader may keep). */
  onDepsRead?: () => void;
}

const neverAborted = new AbortController().signal;

/**
 * What a tool receives: the deps, the retry count, usage so far, the abort signal and its call id.
 * Tools read from it and return updates; they never mutate it.
 *
 * @example
 * const context = RunContext.create({ deps: { count: 1 } });
 * ContextUpdate.new<{ count: number }>().set("count", 2).applyToRunContext(context).deps; // { count: 2 }
 */
export class RunContext<D extends object = Record<string, unknown>> {
  readonly #deps: D;
  #onDepsRead: (() => void) | undefined;
  readonly retry: number;
  readonly usage: Usage;
  readonly signal: AbortSignal;
  readonly toolCallId: string | undefined;
  readonly toolName: string | undefined;
  readonly runId: string | undefined;
  readonly sessionId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly seam: RunSeam | undefined;

  private constructor(options: RunContextOptions<D>) {
    this.#deps = options.deps;
    this.#onDepsRead = options.onDepsRead;
    this.retry = options.retry ?? 0;
    this.usage = options.usage ?? emptyUsage;
    this.signal = options.signal ?? neverAborted;
    this.toolCallId = options.toolCallId;
    this.toolName = options.toolName;
    this.runId = options.runId;
    this.sessionId = options.sessionId;
    this.idempotencyKey = options.idempotencyKey;
    this.seam = options.seam;
    Object.freeze(this);
  }

  static create<D extends object = Record<string, unknown>>(options: RunContextOptions<D>): RunContext<D> {
    return new RunContext(options);
  }

  /** The deps as they were when this context was made (read them during the call). */
  get deps(): D {
    const onRead = this.#onDepsRead;
    if (onRead !== undefined) {
      this.#onDepsRead = undefined;
      onRead();
    }
    return this.#deps;
  }

  /** A run context with other deps; everything else is kept. */
  withDeps(deps: D): RunContext<D> {
    return new RunContext({ ...this.#options(), deps });
  }

  #options(): RunContextOptions<D> {
    return {
      deps: this.deps,
      retry: this.retry,
      usage: this.usage,
      signal: this.signal,
      toolCallId: this.toolCallId,
      toolName: this.toolName,
      runId: this.runId,
      sessionId: this.sessionId,
      idempotencyKey: this.idempotencyKey,
      seam: this.seam,
    };
  }
}
