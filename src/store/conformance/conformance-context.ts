import type { SessionEvent } from "../../session/events.js";
import type { SessionStore } from "../session-store.js";

/** What every group of conformance cases receives: the store of the running test. */
export interface ConformanceContext {
  readonly store: () => SessionStore;
  /**
   * Closes the test's store and opens it again on the same data (a process restart); undefined for
   * a backend whose data does not outlive its instance (memory).
   */
  readonly reopen: (() => Promise<void>) | undefined;
}

/** Resolves after `ms` of real time: lets a lease's ttl pass (the stores' clocks are real clocks). */
export function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A fixed time, so events compare equal after a round trip. */
export const AT = "2025-01-02T03:04:05.678Z";

/** An event numbered `seq` (a custom bookkeeping `note` unless a type is given). */
export function event(seq: number, type = "note", data: unknown = { n: seq }): SessionEvent {
  return { seq, at: AT, type, data } as SessionEvent;
}

/** Events numbered `from, from + 1, …` (`count` of them). */
export function events(from: number, count: number, type = "note"): SessionEvent[] {
  return Array.from({ length: count }, (_, index) => event(from + index, type));
}

/** The events as a store returns them for `sessionId`. */
export function stored(sessionId: string, list: readonly SessionEvent[]): SessionEvent[] {
  return list.map((item) => ({ ...item, sessionId }) as SessionEvent);
}

/** Waits until the wall clock has moved past the current millisecond, so `updatedAt` values differ. */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}
