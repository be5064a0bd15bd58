import { ApprovalPendingError } from "../errors/run-errors.js";
import type { AgentStream, AgentStreamEvent, AgentStreamIterator } from "../runner/agent-stream-event.js";
import { ConsumerStoppedError, type Emit, EventChannel } from "../runner/event-channel.js";
import type { RunResult } from "../runner/types.js";

/**
 * Wraps a run that sends its events through `emit` as an `AgentStream`: the run starts at the first
 * read and waits for its reader (see `EventChannel`); `result` settles with the run. A run that
 * paused for approval ends the iteration normally (its last event is `run_paused`) while `result`
 * rejects with the `ApprovalPendingError`; any other failure is thrown by the iterator after the
 * run's last events. A reader that stops before the end stops the run and `result` rejects with
 * `ConsumerStoppedError`.
 */
export function agentStream<O, D extends object>(
  run: (emit: Emit<AgentStreamEvent>) => Promise<RunResult<O, D>>,
): AgentStream<O, D> {
  // The run emits untyped output events; their values come from the output type's schema.
  return new RunStream(run) as unknown as AgentStream<O, D>;
}

function ignore(): void {}

/**
 * The stream and its iterator in one object, with methods rather than closures: one is made per
 * streaming run.
 */
class RunStream<O, D extends object> implements AsyncIterable<AgentStreamEvent>, AgentStreamIterator {
  readonly result: Promise<RunResult<O, D>>;
  readonly #channel: EventChannel<AgentStreamEvent, undefined>;
  readonly #run: (emit: Emit<AgentStreamEvent>) => Promise<RunResult<O, D>>;
  #resolve!: (value: RunResult<O, D>) => void;
  #reject!: (error: unknown) => void;
  #started = false;

  constructor(run: (emit: Emit<AgentStreamEvent>) => Promise<RunResult<O, D>>) {
    this.#run = run;
    this.result = new Promise<RunResult<O, D>>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody has to read `result`: its rejection is never unhandled.
    this.result.catch(ignore);
    this.#channel = new EventChannel<AgentStreamEvent, undefined>((emit) => this.#drive(emit));
  }

  async #drive(emit: Emit<AgentStreamEvent>): Promise<undefined> {
    this.#started = true;
    try {
      this.#resolve(await this.#run(emit));
    } catch (error) {
      this.#reject(error);
      if (!(error instanceof ApprovalPendingError)) throw error;
    }
    return undefined;
  }

  next(): Promise<IteratorResult<AgentStreamEvent>> {
    return this.#channel.next();
  }

  return(): Promise<IteratorResult<AgentStreamEvent>> {
    if (!this.#started) this.#reject(new ConsumerStoppedError());
    return this.#channel.return();
  }

  throw(error: unknown): Promise<IteratorResult<AgentStreamEvent>> {
    if (!this.#started) this.#reject(error);
    return this.#channel.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
