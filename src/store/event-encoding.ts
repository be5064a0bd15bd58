import { EventNotSerializableError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import { findJsonLoss } from "../session/json-value.js";

/** An event as the persistent stores hold it: the metadata columns and `data` as JSON text. */
export interface EncodedEvent {
  readonly seq: number;
  readonly at: string;
  readonly type: string;
  readonly runId: string | null;
  /** `JSON.stringify(event.data)`, checked to be lossless. */
  readonly data: string;
}

/**
 * Checks that `event.data` survives a JSON round trip (`findJsonLoss`: the one JSON rule, with
 * `toJSON` honoured and nothing dropped or nulled) and returns the encoded event. Throws
 * `EventNotSerializableError` naming the event type, seq and path of the first offending value.
 *
 * @example
 * encodeEvent({ seq: 1, at, type: "audit", data: { ok: true } }).data; // '{"ok":true}'
 */
export function encodeEvent(event: SessionEvent): EncodedEvent {
  const fail = (path: string, detail: string): Error =>
    new EventNotSerializableError({ eventType: event.type, seq: event.seq, path, detail });
  if (event.data === undefined) throw fail("data", "is undefined");
  const loss = findJsonLoss(event.data, "data");
  if (loss !== undefined) throw fail(loss.path, loss.reason);
  let text: string;
  try {
    text = JSON.stringify(event.data);
  } catch (error) {
    if (error instanceof RangeError) throw fail("data", "is nested too deeply to serialize");
    throw error;
  }
  return { seq: event.seq, at: event.at, type: event.type, runId: event.runId ?? null, data: text };
}

/**
 * The event a store returns for a stored row.
 *
 * @example
 * decodeEvent("s1", { seq: 1, at, type: "audit", runId: null, data: '{"ok":true}' });
 */
export function decodeEvent(sessionId: string, row: EncodedEvent): SessionEvent {
  const event: { seq: number; at: string; type: string; data: unknown; sessionId: string; runId?: string } = {
    seq: row.seq,
    at: row.at,
    type: row.type,
    data: JSON.parse(row.data),
    sessionId,
  };
  if (row.runId !== null) event.runId = row.runId;
  return event as SessionEvent;
}
