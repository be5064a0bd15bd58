import { applyCompaction } from "./compaction-view.js";
import { type EventOf, isEventOf, type SessionEvent } from "./events.js";
import type { Message } from "./messages.js";
import { projectMessage } from "./projections.js";

/** Backing arrays shared by a log and the logs appended from it. */
interface Backing {
  readonly events: SessionEvent[];
  readonly messages: Message[];
  /** The seq each message stands for (see `MessageView`). */
  readonly seqs: number[];
}

/**
 * An immutable, append-only list of session events with its message projection kept up to date.
 * Appending returns a new log in O(1): logs share one backing array while they grow in a line, and a
 * log appended from an older version (a branch) copies its prefix first. `messages` is maintained
 * incrementally, never by re-walking the log.
 */
export class SessionLog {
  readonly #backing: Backing;
  readonly #eventCount: number;
  readonly #messageCount: number;
  #events: readonly SessionEvent[] | undefined;
  #messages: readonly Message[] | undefined;

  private constructor(backing: Backing, eventCount: number, messageCount: number) {
    this.#backing = backing;
    this.#eventCount = eventCount;
    this.#messageCount = messageCount;
  }

  /** An empty log. */
  static empty(): SessionLog {
    return new SessionLog({ events: [], messages: [], seqs: [] }, 0, 0);
  }

  /** A log holding `events`, which must already be numbered densely. */
  static fromEvents(events: Iterable<SessionEvent>): SessionLog {
    let log = SessionLog.empty();
    for (const event of events) log = log.appendEvent(event);
    return log;
  }

  /** The number of events. */
  get length(): number {
    return this.#eventCount;
  }

  /** The `seq` the next event gets. Sessions start at 1. */
  get nextSeq(): number {
    return this.#eventCount === 0 ? 1 : (this.#backing.events[this.#eventCount - 1] as SessionEvent).seq + 1;
  }

  /** Every event, in order. */
  get events(): readonly SessionEvent[] {
    this.#events ??= Object.freeze(this.#backing.events.slice(0, this.#eventCount));
    return this.#events;
  }

  /** The surface events projected to model messages. */
  get messages(): readonly Message[] {
    this.#messages ??= Object.freeze(this.#backing.messages.slice(0, this.#messageCount));
    return this.#messages;
  }

  /** The seq of the event each of `messages` stands for (a compaction's summary: the start of the range it replaces). */
  get messageSeqs(): readonly number[] {
    return this.#backing.seqs.slice(0, this.#messageCount);
  }

  /** The event at `index` (0-based; negative counts from the end). */
  at(index: number): SessionEvent | undefined {
    const position = index < 0 ? this.#eventCount + index : index;
    return position >= 0 && position < this.#eventCount ? this.#backing.events[position] : undefined;
  }

  /** A new log with one more event of `type`, numbered with the next `seq`. */
  append(type: string, data: unknown, at: string = new Date().toISOString()): SessionLog {
    return this.appendEvent({ seq: this.nextSeq, at, type, data } as SessionEvent);
  }

  /** A new log with `event` appended; its `seq` must be the next one. */
  appendEvent(event: SessionEvent): SessionLog {
    if (event.seq !== this.nextSeq && !(this.#eventCount === 0 && Number.isInteger(event.seq) && event.seq >= 1)) {
      throw new RangeError(`event seq ${event.seq} does not follow ${this.nextSeq - 1}`);
    }
    const frozen = Object.freeze(event);
    if (isEventOf(frozen, "compaction")) return this.#compact(frozen);
    const message = projectMessage(frozen);
    let backing = this.#backing;
    const isTip = backing.events.length === this.#eventCount && backing.messages.length === this.#messageCount;
    if (!isTip) {
      backing = {
        events: backing.events.slice(0, this.#eventCount),
        messages: backing.messages.slice(0, this.#messageCount),
        seqs: backing.seqs.slice(0, this.#messageCount),
      };
    }
    backing.events.push(frozen);
    if (message !== undefined) {
      backing.messages.push(Object.freeze(message));
      backing.seqs.push(frozen.seq);
    }
    return new SessionLog(backing, this.#eventCount + 1, this.#messageCount + (message === undefined ? 0 : 1));
  }

  /** A compaction rewrites the view of earlier messages: the log gets a backing of its own (O(n), once per compaction). */
  #compact(event: EventOf<"compaction">): SessionLog {
    const view = applyCompaction(
      {
        messages: this.#backing.messages.slice(0, this.#messageCount),
        seqs: this.#backing.seqs.slice(0, this.#messageCount),
      },
      event.data,
    );
    const backing: Backing = {
      events: [...this.#backing.events.slice(0, this.#eventCount), event],
      messages: [...view.messages],
      seqs: [...view.seqs],
    };
    return new SessionLog(backing, this.#eventCount + 1, backing.messages.length);
  }

  /** The first `count` events, as a log of their own (the basis of a fork). */
  prefix(count: number): SessionLog {
    return SessionLog.fromEvents(this.events.slice(0, Math.max(0, count)));
  }

  [Symbol.iterator](): Iterator<SessionEvent> {
    return this.events[Symbol.iterator]();
  }

  toJSON(): readonly SessionEvent[] {
    return this.events;
  }
}
