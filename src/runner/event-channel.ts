/**
 * Sends one event to the consumer. A pausing event resolves when the consumer asks for the next
 * one; `{ pause: false }` queues it and returns `undefined` at once (deltas: nothing waits on them).
 */
export type Emit<E> = (event: E, options?: { readonly pause: false }) => Promise<void> | undefined;

/** Thrown into a run at its pending (or next) pausing `emit` when the consumer stops early. */
export class ConsumerStoppedError extends Error {
  constructor() {
    super("the stream's consumer stopped reading");
    this.name = "ConsumerStoppedError";
  }
}

type Settle<T> = { resolve(value: T): void; reject(error: unknown): void };
type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/**
 * The events of a run, as an async iterator with a generator's semantics but no generator per
 * stage: the run is a plain async function that emits events. Nothing runs before the first
 * `next()`. At a pausing event the run waits until the consumer has taken it and asks for the next
 * one (backpressure, as at a generator's `yield`); non-pausing events (deltas) are queued and
 * delivered in order. `throw(error)` makes the run's pending (or next) pausing `emit` throw
 * `error`, which the run records as its failure; `return()` ends the iteration at once and the run
 * unwinds from that same point with `ConsumerStoppedError`.
 *
 * @example
 * const events = new EventChannel<string, number>(async (emit) => { await emit("a"); return 1; });
 * for await (const event of events) console.log(event); // "a"
 */
export class EventChannel<E, R> implements AsyncIterableIterator<E> {
  #start: ((emit: Emit<E>) => Promise<R>) | undefined;
  /** The consumer's pending `next()` or `throw()`. */
  #consumer: Settle<IteratorResult<E, R>> | undefined;
  /** The run, paused at a pausing `emit` whose event has been handed out or queued. */
  #paused: Settle<void> | undefined;
  /** Events the consumer has not taken yet, oldest first. */
  readonly #queue: E[] = [];
  /** An error for the run's next pausing emit (the consumer threw or stopped while the run ran). */
  #interrupt: { readonly error: unknown } | undefined;
  /** How the run ended, until the consumer is told. */
  #outcome: Outcome<R> | undefined;
  #finished = false;
  #stopped = false;

  constructor(run: (emit: Emit<E>) => Promise<R>) {
    this.#start = run;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<E, R>> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ done: false, value: queued });
    const outcome = this.#outcome;
    if (outcome !== undefined) {
      this.#outcome = undefined;
      return outcome.ok ? Promise.resolve({ done: true, value: outcome.value }) : Promise.reject(outcome.error);
    }
    if (this.#finished || this.#stopped) return Promise.resolve({ done: true, value: undefined as R });
    return new Promise((resolve, reject) => {
      this.#consumer = { resolve, reject };
      const start = this.#start;
      if (start !== undefined) {
        this.#start = undefined;
        start(this.#emit).then(
          (value) => this.#end({ ok: true, value }),
          (error: unknown) => this.#end({ ok: false, error }),
        );
      } else {
        const paused = this.#paused;
        this.#paused = undefined;
        paused?.resolve();
      }
    });
  }

  throw(error: unknown): Promise<IteratorResult<E, R>> {
    this.#queue.length = 0;
    if (this.#start !== undefined || this.#finished || this.#stopped) {
      this.#start = undefined;
      this.#finished = true;
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#consumer = { resolve, reject };
      this.#interruptRun(error);
    });
  }

  return(value?: R): Promise<IteratorResult<E, R>> {
    this.#queue.length = 0;
    this.#outcome = undefined;
    this.#consumer = undefined;
    this.#stopped = true;
    if (this.#start !== undefined) this.#start = undefined;
    else if (!this.#finished) this.#interruptRun(new ConsumerStoppedError());
    return Promise.resolve({ done: true, value: value as R });
  }

  #interruptRun(error: unknown): void {
    const paused = this.#paused;
    this.#paused = undefined;
    if (paused !== undefined) paused.reject(error);
    else this.#interrupt = { error };
  }

  readonly #emit: Emit<E> = (event, options) => {
    if (options?.pause === false) {
      if (this.#interrupt === undefined && !this.#stopped) this.#deliver(event);
      return undefined;
    }
    const interrupt = this.#interrupt;
    if (interrupt !== undefined) {
      this.#interrupt = undefined;
      return Promise.reject(interrupt.error);
    }
    return new Promise<void>((resolve, reject) => {
      this.#paused = { resolve, reject };
      this.#deliver(event);
    });
  };

  /** Hands `event` to the waiting consumer, or queues it behind what it has not taken yet. */
  #deliver(event: E): void {
    const consumer = this.#consumer;
    if (consumer === undefined || this.#queue.length > 0) {
      this.#queue.push(event);
      return;
    }
    this.#consumer = undefined;
    consumer.resolve({ done: false, value: event });
  }

  #end(outcome: Outcome<R>): void {
    this.#finished = true;
    this.#paused = undefined;
    if (this.#stopped) return; // the consumer has gone: nothing to report to
    const consumer = this.#consumer;
    this.#consumer = undefined;
    if (consumer === undefined) {
      this.#outcome = outcome; // reported by the next `next()`, after the queued events
      return;
    }
    if (outcome.ok) consumer.resolve({ done: true, value: outcome.value });
    else consumer.reject(outcome.error);
  }
}
