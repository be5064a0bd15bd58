import { CancelledError } from "../errors/run-errors.js";

/** Throws `CancelledError` when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError(signal.reason);
}

/**
 * Settles with `promise`, or rejects with `CancelledError` as soon as `signal` fires. The abort
 * listener lives only as long as the race, so none is left behind however many calls a run makes.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined || signal === neverAborted) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(new CancelledError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(new CancelledError(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The signal of a call nothing can abort (no listener is ever added to it). */
const neverAborted = new AbortController().signal;

/**
 * An abort signal for one call: fires when the parent fires or after `timeoutMs`. `dispose` removes
 * the listener and clears the timer; call it in a `finally`.
 */
const notTimedOut = () => false;
const nothing = () => {};

export function childSignal(
  parent: AbortSignal | undefined,
  timeoutMs?: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  // Nothing can abort the call: no controller, no listener, no timer (the common case, and a hot path).
  if (parent === undefined && timeoutMs === undefined)
    return { signal: neverAborted, timedOut: notTimedOut, dispose: nothing };
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
}
