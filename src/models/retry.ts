import { NousError } from "../errors/nous-error.js";
import type { ProviderError } from "../errors/provider-error.js";
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from "./model.js";

/** What happens before a retry, for logs and metrics. */
export interface RetryAttempt {
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: ProviderError;
}

/** How `withRetry` retries. Every field has a default. */
export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  readonly maxRetries?: number;
  /** Backoff before the first retry. Default 500 ms; doubled (`backoffFactor`) for each next one. */
  readonly initialDelayMs?: number;
  readonly backoffFactor?: number;
  /** Cap of one backoff delay. Default 30 s. */
  readonly maxDelayMs?: number;
  /** Spread of the backoff: each delay is drawn from base × [1 − jitter, 1 + jitter]. Default 0.2. */
  readonly jitter?: number;
  /**
   * The longest `retry-after` honoured. Default 60 s. A server asking for longer is not retried: the
   * error is thrown at once (with its `retryAfterMs`), so the caller can reschedule instead of
   * holding a run open.
   */
  readonly maxRetryAfterMs?: number;
  /** Bound of the total time spent waiting between attempts. Default: none (only `maxRetries`). */
  readonly deadlineMs?: number;
  /** Injectable for tests: waits `ms`, rejecting with the signal's reason when it aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: a number in [0, 1). */
  readonly random?: () => number;
  readonly onRetry?: (attempt: RetryAttempt) => void;
}

/**
 * A model that retries its inner model's retryable provider errors (rate limits, overload, 5xx,
 * network, truncated streams) with exponential backoff and jitter. A `retry-after` from the
 * provider is used as the delay when it is within `maxRetryAfterMs`; a longer one fails at once.
 * Nothing is retried once the request's signal has aborted, and waits end with the signal.
 * A stream that fails before yielding anything is retried silently; one that fails after some
 * parts yields `{ type: "stream-reset" }` first, so the consumer discards what it received.
 * Each retry decided is reported to the request's `onNotice` (the runner records it as `model_retry`).
 *
 * @example
 * const model = withRetry(resolveModel("openai:gpt-5-mini"), { maxRetries: 5, deadlineMs: 60_000 });
 */
export function withRetry(model: Model, policy: RetryPolicy = {}): Model {
  const planner = new RetryPlanner(policy);
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    ...(model.capabilities === undefined ? {} : { capabilities: model.capabilities }),
    ...(model.wire === undefined ? {} : { wire: model.wire }),
    doGenerate(request: ModelRequest): Promise<ModelResponse> {
      // The first attempt is passed straight through; the retry loop exists only once it failed.
      let first: Promise<ModelResponse>;
      try {
        first = model.doGenerate(request);
      } catch (error) {
        return retryGenerate(model, planner, request, error);
      }
      return first.catch((error: unknown) => retryGenerate(model, planner, request, error));
    },
    doStream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      return new RetryingStream(model, request, planner);
    },
  };
}

/** What `retryCall` retries for: the model's name (for notices) and the call's signal. */
export interface RetryTarget {
  readonly provider: string;
  readonly modelId: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Calls `call` and, after a retryable provider error, calls it again, with the decisions of
 * `withRetry` (backoff with jitter, `retry-after` honoured up to `maxRetryAfterMs`, no retry once
 * `target.signal` aborted). For calls that are not chat requests, such as embeddings.
 *
 * @example
 * const answer = await retryCall(() => model.doEmbed({ values, signal }), { ...model, signal }, { maxRetries: 5 });
 */
export async function retryCall<T>(call: () => Promise<T>, target: RetryTarget, policy: RetryPolicy = {}): Promise<T> {
  const planner = new RetryPlanner(policy);
  const budget = planner.start();
  const request = target.signal === undefined ? {} : { signal: target.signal };
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      await planner.waitBeforeRetry(error, attempt, budget, request, target);
    }
  }
}

async function retryGenerate(
  model: Model,
  planner: RetryPlanner,
  request: ModelRequest,
  firstError: unknown,
): Promise<ModelResponse> {
  const budget = planner.start();
  let error = firstError;
  for (let attempt = 1; ; attempt++) {
    await planner.waitBeforeRetry(error, attempt, budget, request, model);
    try {
      return await model.doGenerate(request);
    } catch (next) {
      error = next;
    }
  }
}

/**
 * The inner model's stream, restarted after a retryable failure. A plain iterator rather than an
 * async generator: each part passes straight through, with no generator hop of its own.
 */
class RetryingStream implements AsyncIterableIterator<ModelStreamPart> {
  readonly #model: Model;
  readonly #request: ModelRequest;
  readonly #planner: RetryPlanner;
  readonly #budget: { waitedMs: number };
  #inner: AsyncIterator<ModelStreamPart> | undefined;
  #attempt = 1;
  #yielded = false;
  #done = false;
  /** Set after a `stream-reset` part: the backoff still to wait before the next attempt. */
  #delay: PlannedRetry | undefined;

  constructor(model: Model, request: ModelRequest, planner: RetryPlanner) {
    this.#model = model;
    this.#request = request;
    this.#planner = planner;
    this.#budget = planner.start();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelStreamPart>> {
    if (this.#done) return Promise.resolve({ done: true, value: undefined });
    if (this.#delay !== undefined) {
      const delay = this.#delay;
      this.#delay = undefined;
      return this.#planner.wait(delay, this.#request.signal).then(
        () => this.next(),
        (error: unknown) => this.#fail(error),
      );
    }
    let pending: Promise<IteratorResult<ModelStreamPart>>;
    try {
      this.#inner ??= this.#model.doStream(this.#request)[Symbol.asyncIterator]();
      pending = this.#inner.next();
    } catch (error) {
      return this.#recover(error);
    }
    return pending.then(
      (result) => {
        if (result.done) this.#done = true;
        else this.#yielded = true;
        return result;
      },
      (error: unknown) => this.#recover(error),
    );
  }

  async return(): Promise<IteratorResult<ModelStreamPart>> {
    this.#done = true;
    const inner = this.#inner;
    this.#inner = undefined;
    await inner?.return?.();
    return { done: true, value: undefined };
  }

  /** After a failed attempt: the next attempt (or a `stream-reset` first), or the error when it must not be retried. */
  async #recover(error: unknown): Promise<IteratorResult<ModelStreamPart>> {
    let delay: PlannedRetry;
    try {
      delay = this.#planner.plan(error, this.#attempt, this.#budget, this.#request, this.#model);
    } catch (final) {
      return this.#fail(final);
    }
    this.#attempt += 1;
    this.#inner = undefined;
    if (this.#yielded) {
      this.#yielded = false;
      this.#delay = delay;
      return { done: false, value: { type: "stream-reset", reason: describe(error) } };
    }
    try {
      await this.#planner.wait(delay, this.#request.signal);
    } catch (aborted) {
      return this.#fail(aborted);
    }
    return this.next();
  }

  #fail(error: unknown): never {
    this.#done = true;
    throw error;
  }
}

/** A retry decided: how long to wait, and what the request's `onNotice` returned for it. */
interface PlannedRetry {
  readonly delayMs: number;
  readonly noticed: PromiseLike<void> | undefined | void;
}

/** The retry decisions, kept apart from the model plumbing. */
class RetryPlanner {
  readonly #maxRetries: number;
  readonly #initialDelayMs: number;
  readonly #backoffFactor: number;
  readonly #maxDelayMs: number;
  readonly #jitter: number;
  readonly #maxRetryAfterMs: number;
  readonly #deadlineMs: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #onRetry: ((attempt: RetryAttempt) => void) | undefined;

  constructor(policy: RetryPolicy) {
    this.#maxRetries = policy.maxRetries ?? 3;
    this.#initialDelayMs = policy.initialDelayMs ?? 500;
    this.#backoffFactor = policy.backoffFactor ?? 2;
    this.#maxDelayMs = policy.maxDelayMs ?? 30_000;
    this.#jitter = Math.min(1, Math.max(0, policy.jitter ?? 0.2));
    this.#maxRetryAfterMs = policy.maxRetryAfterMs ?? 60_000;
    this.#deadlineMs = policy.deadlineMs ?? Number.POSITIVE_INFINITY;
    this.#sleep = policy.sleep ?? abortableSleep;
    this.#random = policy.random ?? Math.random;
    this.#onRetry = policy.onRetry;
  }

  start(): { waitedMs: number } {
    return { waitedMs: 0 };
  }

  /**
   * The delay before retry number `attempt`, or throws `error` when it must not be retried. A retry
   * decided is reported to `onRetry` and to the request's `onNotice`.
   */
  plan(
    error: unknown,
    attempt: number,
    budget: { waitedMs: number },
    request: Pick<ModelRequest, "signal" | "onNotice">,
    model: Pick<Model, "provider" | "modelId">,
  ): PlannedRetry {
    const signal = request.signal;
    if (signal?.aborted) throw signal.reason;
    if (!isRetryable(error) || attempt > this.#maxRetries) throw error;
    let delayMs: number;
    const retryAfterMs = error.retryAfterMs;
    if (retryAfterMs !== undefined) {
      if (retryAfterMs > this.#maxRetryAfterMs) throw error;
      delayMs = retryAfterMs;
    } else {
      const base = Math.min(this.#maxDelayMs, this.#initialDelayMs * this.#backoffFactor ** (attempt - 1));
      delayMs = Math.round(base * (1 - this.#jitter + 2 * this.#jitter * this.#random()));
    }
    if (budget.waitedMs + delayMs > this.#deadlineMs) throw error;
    budget.waitedMs += delayMs;
    this.#onRetry?.({ attempt, delayMs, error });
    const noticed = request.onNotice?.({
      type: "retry",
      model: `${model.provider}:${model.modelId}`,
      attempt,
      error,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      delayMs,
    });
    // Awaited in wait(); marked handled now so an abort during the backoff leaves no unhandled rejection.
    noticed?.then(undefined, () => {});
    return { delayMs, noticed };
  }

  /** The backoff, and the notice's own promise (the runner commits `model_retry` before the next attempt goes out). */
  async wait(delay: PlannedRetry, signal: AbortSignal | undefined): Promise<void> {
    await this.#sleep(delay.delayMs, signal);
    if (delay.noticed !== undefined) await delay.noticed;
  }

  async waitBeforeRetry(
    error: unknown,
    attempt: number,
    budget: { waitedMs: number },
    request: Pick<ModelRequest, "signal" | "onNotice">,
    model: Pick<Model, "provider" | "modelId">,
  ): Promise<void> {
    await this.wait(this.plan(error, attempt, budget, request, model), request.signal);
  }
}

/** A provider error marked retryable (checked structurally, so other copies of Nous count too). */
function isRetryable(error: unknown): error is ProviderError {
  return NousError.isInstance(error) && error.fault === "provider" && (error as ProviderError).retryable === true;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts, leaving no timer or listener. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
