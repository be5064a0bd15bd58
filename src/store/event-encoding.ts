import { EventNotSerializableError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";

/** An event as the persistent stores hold it: the metadata columns and `data` as JSON text. */
export interface EncodedEvent {
  readonly seq: number;
  readonly at: string;
  readonly type: string;
  readonly runId: string | null;
  /** `JSON.stringify(event.data)`, checked to be lossless. */
  readonly data: string;
}

/** Built-in objects JSON would silently turn into `{}` or drop. */
const lossyBuiltins: readonly [new (...args: never[]) => object, string][] = [
  [Map, "a Map"],
  [Set, "a Set"],
  [WeakMap, "a WeakMap"],
  [WeakSet, "a WeakSet"],
  [Promise, "a Promise"],
  [RegExp, "a RegExp"],
  [Error, "an Error"],
  [ArrayBuffer, "an ArrayBuffer"],
];

/**
 * Checks that `event.data` survives a JSON round trip and returns the encoded event. Throws
 * `EventNotSerializableError` naming the event type, seq and path of the first offending value.
 *
 * @example
 * encodeEvent({ seq: 1, at, type: "audit", data: { ok: true } }).data; // '{"ok":true}'
 */
export function encodeEvent(event: SessionEvent): EncodedEvent {
  const fail = (path: string, detail: string): Error =>
    new EventNotSerializableError({ eventType: event.type, seq: event.seq, path, detail });
  if (event.data === undefined) throw fail("data", "is undefined");
  let text: string;
  try {
    checkValue(event.data, "data", new Set(), fail);
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

function checkValue(
  value: unknown,
  path: string,
  ancestors: Set<object>,
  fail: (path: string, detail: string) => Error,
): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw fail(path, `${value} is not JSON-serializable (it would become null)`);
      return;
    case "bigint":
      throw fail(path, "a bigint is not JSON-serializable");
    case "symbol":
      throw fail(path, "a symbol is not JSON-serializable");
    case "function":
      throw fail(path, "a function is not JSON-serializable");
    case "undefined":
      throw fail(path, "undefined is not JSON-serializable here (it would become null)");
    case "object":
      checkObject(value, path, ancestors, fail);
      return;
    default:
      throw fail(path, `a ${typeof value} is not JSON-serializable`);
  }
}

function checkObject(
  value: object | null,
  path: string,
  ancestors: Set<object>,
  fail: (path: string, detail: string) => Error,
): void {
  if (value === null) return;
  if (ancestors.has(value)) throw fail(path, "is a cycle (the value contains itself)");
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    ancestors.add(value);
    checkValue(toJSON.call(value, lastKey(path)), path, ancestors, fail);
    ancestors.delete(value);
    return;
  }
  for (const [type, name] of lossyBuiltins) {
    if (value instanceof type) throw fail(path, `${name} is not JSON-serializable (it would become {})`);
  }
  if (ArrayBuffer.isView(value)) throw fail(path, "a typed array is not JSON-serializable");
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) checkValue(value[index], `${path}[${index}]`, ancestors, fail);
  } else {
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      // JSON drops undefined properties, as every JSON consumer expects; functions and symbols are errors.
      if (item !== undefined) checkValue(item, `${path}${formatKey(key)}`, ancestors, fail);
    }
  }
  ancestors.delete(value);
}

function formatKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function lastKey(path: string): string {
  const match = /(?:\.([\w$]+)|\[(.+)\])$/.exec(path);
  if (match === null) return "";
  if (match[1] !== undefined) return match[1];
  const inner = match[2] ?? "";
  return inner.startsWith('"') ? (JSON.parse(inner) as string) : inner;
}
