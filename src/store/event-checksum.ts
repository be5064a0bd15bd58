import { EventCorruptedError, type EventDamage } from "../errors/store-errors.js";
import { sha256Hex } from "../platform/sha256.js";
import type { SessionEvent } from "../session/events.js";
import type { EncodedEvent } from "./event-encoding.js";

/** An encoded event with its chained checksum, as the stores keep it. */
export interface StoredEvent extends EncodedEvent {
  /** `eventChecksum(previous event's checksum, this event)`; `""` when it was never computed. */
  readonly checksum: string;
}

/** The chain seed of a session's first event. */
export const CHAIN_START = "";

/**
 * The checksum of an event's canonical encoding (seq, at, type, runId and the data text, not the
 * session id, so a fork's copies keep theirs) chained to the previous event's checksum: sha256,
 * truncated to 128 bits, as 32 hex digits. A changed, removed or reordered event breaks the chain.
 *
 * @example
 * const first = eventChecksum(CHAIN_START, encodeEvent(event1));
 * const second = eventChecksum(first, encodeEvent(event2));
 */
export function eventChecksum(previous: string, event: EncodedEvent): string {
  const runId = event.runId === null ? "-" : `${event.runId.length}:${event.runId}`;
  // Length prefixes keep the encoding unambiguous; data comes last, so it needs none.
  const text = `nous-event-1\n${previous}\n${event.seq}\n${event.at.length}:${event.at}\n${event.type.length}:${event.type}\n${runId}\n${event.data}`;
  return sha256Hex(text).slice(0, 32);
}

/**
 * Chains checksums onto encoded events, starting from the checksum of the event before the first.
 *
 * @example
 * const rows = chainChecksums(lastStoredChecksum ?? CHAIN_START, prepared.events);
 */
export function chainChecksums(previous: string, events: readonly EncodedEvent[]): StoredEvent[] {
  let checksum = previous;
  return events.map((event) => {
    checksum = eventChecksum(checksum, event);
    return { ...event, checksum };
  });
}

/** A window of stored rows, as a backend's read query returns them. */
export interface StoredWindow {
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly limit: number;
  /** The session's recorded last seq (its summary), `undefined` when the session does not exist. */
  readonly lastSeq: number | undefined;
  /**
   * Rows in seq order from seq `fromSeq - 1` when `fromSeq > 1` (that row is the chain seed and is
   * not returned), else from seq 1; at most `limit` events after the seed.
   */
  readonly rows: readonly StoredEvent[];
}

/** Where a read happened, for the error. */
export interface ReadSite {
  readonly backend: string;
  readonly operation: string;
}

/**
 * Verifies a window of stored rows (seqs dense and within the session's last seq, each checksum
 * matching its content chained to the row before) and decodes them. Throws `EventCorruptedError`
 * naming the session and the first damaged seq.
 *
 * @example
 * const events = decodeVerified({ sessionId: "s1", fromSeq: 1, limit: 10, lastSeq: 2, rows }, site);
 */
export function decodeVerified(window: StoredWindow, site: ReadSite): SessionEvent[] {
  const { sessionId, fromSeq, limit, rows } = window;
  if (window.lastSeq === undefined || limit === 0) return [];
  const lastSeq = window.lastSeq;
  const fail = (seq: number, damage: EventDamage, detail: string, cause?: unknown): EventCorruptedError =>
    new EventCorruptedError({ ...site, sessionId, seq, damage, detail, cause });
  let index = 0;
  let previous = CHAIN_START;
  if (fromSeq > 1 && fromSeq - 1 <= lastSeq) {
    const seed = rows[0];
    if (seed?.seq !== fromSeq - 1) throw missing(fail, fromSeq - 1, lastSeq, seed);
    previous = seed.checksum;
    index = 1;
  }
  const events: SessionEvent[] = [];
  let expected = fromSeq;
  for (; index < rows.length; index++) {
    const row = rows[index] as StoredEvent;
    if (row.seq > lastSeq) {
      throw fail(
        row.seq,
        "unexpected_event",
        `the session records events up to seq ${lastSeq}, but the store holds seq ${row.seq}`,
      );
    }
    if (row.seq !== expected) throw missing(fail, expected, lastSeq, row);
    let data: unknown;
    try {
      data = JSON.parse(row.data);
    } catch (error) {
      throw fail(row.seq, "invalid_json", `its data is not valid JSON (${(error as Error).message})`, error);
    }
    if (eventChecksum(previous, row) !== row.checksum) {
      const chained = row.seq === 1 ? "" : ` chained to seq ${row.seq - 1}'s checksum`;
      throw fail(
        row.seq,
        "checksum_mismatch",
        `its checksum does not match its content${chained}: the event was changed${row.seq === 1 ? "" : ", or an event before it was removed, replaced or reordered"}`,
      );
    }
    events.push(toEvent(sessionId, row, data));
    previous = row.checksum;
    expected++;
  }
  if (events.length < limit && expected <= lastSeq) throw missing(fail, expected, lastSeq, undefined);
  return events;
}

function missing(
  fail: (seq: number, damage: EventDamage, detail: string) => EventCorruptedError,
  seq: number,
  lastSeq: number,
  found: StoredEvent | undefined,
): EventCorruptedError {
  const next = found === undefined ? "none after it" : `seq ${found.seq} next`;
  return fail(
    seq,
    "missing_events",
    `the event is missing (the session records events up to seq ${lastSeq}; the store holds ${next})`,
  );
}

function toEvent(sessionId: string, row: StoredEvent, data: unknown): SessionEvent {
  const event: { seq: number; at: string; type: string; data: unknown; sessionId: string; runId?: string } = {
    seq: row.seq,
    at: row.at,
    type: row.type,
    data,
    sessionId,
  };
  if (row.runId !== null) event.runId = row.runId;
  return event as SessionEvent;
}

/**
 * Parses an event's stored JSON where the store reads it outside `read` (a fork's lifecycle fold):
 * damaged JSON is an `EventCorruptedError`, never a raw `SyntaxError`.
 *
 * @example
 * const data = parseStoredData(row.data, { sessionId: "s1", seq: row.seq }, { backend: "sqlite", operation: "fork" });
 */
export function parseStoredData(text: string, at: { sessionId: string; seq: number }, site: ReadSite): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EventCorruptedError({
      ...site,
      ...at,
      damage: "invalid_json",
      detail: `its data is not valid JSON (${(error as Error).message})`,
      cause: error,
    });
  }
}
