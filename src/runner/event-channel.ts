/** Sends one event to the consumer; resolves when the consumer asks for the next one. */
export type Emit<E> = (event: E) => Promise<void>;

/** Thrown into a run at its pending `emit` when the consumer stops early (`return()`, `break`). */
export class ConsumerStoppedError extends Error {
  constructor() {
    super("the stream's consumer stopped reading");
    this.name = "ConsumerStoppedError";
  }
}

type Settle<T> = { resolve(value: T): void; reject(error: unknown): void };

/**
 * The events of a run, as an async iterator with a generator's semantics but no generator per
 * stage: the run is a plain async function that awaits `emit(event)`. Nothing runs before the
 * first `next()`; the run pauses at each `emit` until the consumer asks for the next event
 * (backpressure); `throw(error)` makes the pending `emit` throw `error` inside the run (which then
 * records its failure as usual); `return()` makes it throw `ConsumerStoppedError`.
 *
 * @example
 * const events = new EventChannel<string, number>(async (emit) => { await emit("a"); return 1; });
 * for await (const event of events) console.log(event); // "a"
 */
export class EventChannel<E, R> implements AsyncIterableIterator<E> {
  #start: ((emit: Emit<E>) => Promise<R>) | undefined;
  /** The consumer's pending `next()` (or `throw()`/`return()`). */
  #consumer: Settle<IteratorResult<E, R>> | undefined;
  /** The run, paused at an `emit`. */
  #paused: Settle<void> | undefined;
  #done = false;

  constructor(run: (emit: Emit<E>) => Promise<R>) {
    this.#start = run;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<E, R>> {
    if (this.#done) return Promise.resolve({ done: true, value: undefined as R });
    return new Promise((resolve, reject) => {
      this.#consumer = { resolve, reject };
      const start = this.#start;
      if (start !== undefined) {
        this.#start = undefined;
        start(this.#emit).then(
          (value) => this.#end({ done: true, value }),
          (error: unknown) => this.#end(undefined, error),
        );
      } else {
        this.#resume()?.resolve();
      }
    });
  }

  throw(error: unknown): Promise<IteratorResult<E, R>> {
    const paused = this.#resume();
    if (paused === undefined) {
      this.#done = true;
      this.#start = undefined;
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#consumer = { resolve, reject };
      paused.reject(error);
    });
  }

  return(value?: R): Promise<IteratorResult<E, R>> {
    const paused = this.#resume();
    this.#start = undefined;
    if (paused === undefined) {
      this.#done = true;
      return Promise.resolve({ done: true, value: value as R });
    }
    // The run unwinds from its pending emit (its `finally` blocks run); its outcome is not reported.
    return new Promise((resolve) => {
      this.#consumer = {
        resolve: () => resolve({ done: true, value: value as R }),
        reject: () => resolve({ done: true, value: value as R }),
      };
      paused.reject(new ConsumerStoppedError());
    });
  }

  readonly #emit: Emit<E> = (event) =>
    new Promise<void>((resolve, reject) => {
      const consumer = this.#consumer;
      if (consumer === undefined) {
        reject(new Error("an event was emitted while no one was reading"));
        return;
      }
      this.#consumer = undefined;
      this.#paused = { resolve, reject };
      consumer.resolve({ done: false, value: event });
    });

  #resume(): Settle<void> | undefined {
    const paused = this.#paused;
    this.#paused = undefined;
    return paused;
  }

  #end(result: IteratorResult<E, R> | undefined, error?: unknown): void {
    this.#done = true;
    const consumer = this.#consumer;
    this.#consumer = undefined;
    if (result !== undefined) consumer?.resolve(result);
    else consumer?.reject(error);
  }
}
