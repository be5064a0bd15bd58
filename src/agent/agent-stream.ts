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
  let settle: { resolve(value: RunResult<O, D>): void; reject(error: unknown): void } | undefined;
  const result = new Promise<RunResult<O, D>>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody has to read `result`: its rejection is never unhandled.
  result.catch(() => {});
  let started = false;
  const channel = new EventChannel<AgentStreamEvent, undefined>(async (emit) => {
    started = true;
    try {
      settle?.resolve(await run(emit));
    } catch (error) {
      settle?.reject(error);
      if (!(error instanceof ApprovalPendingError)) throw error;
    }
    return undefined;
  });
  const iterator: AgentStreamIterator = {
    next: () => channel.next(),
    return: () => {
      if (!started) settle?.reject(new ConsumerStoppedError());
      return channel.return();
    },
    throw: (error: unknown) => {
      if (!started) settle?.reject(error);
      return channel.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { result, [Symbol.asyncIterator]: () => iterator };
}
