import type { RedisClient } from "./fleet-peers.js";

/**
 * A connection for `SessionWatch`, duplicated from `redis`: it waits out a Redis restart, and it
 * skips ioredis's ready check. ioredis writes a command Redis allows while loading (SUBSCRIBE is
 * one) as soon as the socket connects, before the check's INFO; once subscribed, Redis refuses
 * that INFO, the check fails and every queued command with it.
 *
 * @example
 * const watch = new SessionWatch(subscriberOf(redis));
 */
export function subscriberOf(redis: RedisClient): RedisClient {
  return redis.duplicate({ maxRetriesPerRequest: null, enableReadyCheck: false });
}

/**
 * Wake-ups for processes waiting on sessions: workers publish on a session's channel after each
 * commit and when a run ends; waiters subscribe through one shared connection. A wake-up only says
 * "look again": what happened is always read from the store, so a lost message costs a little
 * latency (waiters also look every `fallbackMs`), never an event.
 */
export class SessionWatch {
  readonly #subscriber: RedisClient;
  readonly #listeners = new Map<string, Set<() => void>>();

  constructor(subscriber: RedisClient) {
    this.#subscriber = subscriber;
    subscriber.on("message", (channel: string) => {
      for (const listener of this.#listeners.get(channel) ?? []) listener();
    });
  }

  /**
   * A waiter on `channel`: `next()` resolves at the next message, after `fallbackMs`, or when
   * `signal` aborts (rejecting with its reason). Close it when done.
   */
  async open(channel: string, fallbackMs: number, signal?: AbortSignal): Promise<Waiter> {
    let pending = false;
    let wake: (() => void) | undefined;
    const listener = () => {
      pending = true;
      wake?.();
    };
    let set = this.#listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(channel, set);
      await this.#subscriber.subscribe(channel);
    }
    set.add(listener);
    const close = async () => {
      const current = this.#listeners.get(channel);
      current?.delete(listener);
      if (current?.size === 0) {
        this.#listeners.delete(channel);
        await this.#subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    const next = () =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        if (pending) {
          pending = false;
          return resolve();
        }
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", aborted);
          wake = undefined;
          pending = false;
        };
        const aborted = () => {
          done();
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          done();
          resolve();
        }, fallbackMs);
        wake = () => {
          done();
          resolve();
        };
        signal?.addEventListener("abort", aborted, { once: true });
      });
    return { next, close };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#subscriber.disconnect();
  }
}

/** One waiter of a channel. */
export interface Waiter {
  next(): Promise<void>;
  close(): Promise<void>;
}
