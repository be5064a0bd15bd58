/**
 * The inspector's read cache: a session's events, kept for the few sessions looked at last and
 * topped up with only the events appended since (the log is append-only). A session recreated under
 * the same id (another `createdAt`) or shorter than what is cached is read again in full.
 */
import type { SessionEvent, SessionStore } from "../index.js";

interface Entry {
  readonly createdAt: string;
  readonly events: SessionEvent[];
}

/** Reads sessions' events through a small cache; `read` returns an array callers must not change. */
export class EventCache {
  readonly #store: SessionStore;
  readonly #entries = new Map<string, Entry>();
  readonly #size: number;

  constructor(store: SessionStore, size = 8) {
    this.#store = store;
    this.#size = size;
  }

  /** The session's events (empty when it does not exist). */
  async read(sessionId: string): Promise<readonly SessionEvent[]> {
    const summary = await this.#store.get(sessionId);
    if (summary === undefined) {
      this.#entries.delete(sessionId);
      return [];
    }
    let entry = this.#entries.get(sessionId);
    const cachedLast = entry?.events.at(-1)?.seq ?? 0;
    if (entry === undefined || entry.createdAt !== summary.createdAt || cachedLast > summary.lastSeq) {
      entry = { createdAt: summary.createdAt, events: await this.#store.read(sessionId) };
    } else if (cachedLast < summary.lastSeq) {
      entry.events.push(...(await this.#store.read(sessionId, { fromSeq: cachedLast + 1 })));
    }
    // Most recently used last; the oldest goes first.
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    if (this.#entries.size > this.#size) this.#entries.delete(this.#entries.keys().next().value as string);
    return entry.events;
  }
}
