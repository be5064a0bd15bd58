import { EventSequenceError, StoreArgumentError } from "../errors/store-errors.js";
import { base64ToUtf8, compareUtf8, utf8ToBase64 } from "../platform/text-bytes.js";
import type { SessionEvent } from "../session/events.js";
import { type EncodedEvent, encodeEvent } from "./event-encoding.js";
import { type ListFilter, type ReadOptions, SESSION_STATUSES, type SessionStatus } from "./session-store.js";

/** The largest page `list` returns. */
export const MAX_LIST_LIMIT = 1000;
const DEFAULT_LIST_LIMIT = 50;

/** The longest session id (or event type, or run id) a store accepts, in UTF-16 code units. */
export const MAX_IDENTIFIER_LENGTH = 256;

/**
 * Why `value` cannot name a session (or event type, or run), or `undefined` when it can: it must be
 * a non-empty string of at most 256 UTF-16 code units, well-formed unicode (any script, emoji
 * included) without control characters (C0, DEL, C1), line or paragraph separators, or bidi
 * overrides and isolates — so an id prints on one line, as it reads. The value is never echoed.
 *
 * @example
 * identifierProblem("x".repeat(300)); // "is 300 characters long; at most 256 are allowed"
 */
export function identifierProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return "expected a non-empty string";
  if (value.length > MAX_IDENTIFIER_LENGTH) {
    return `is ${value.length} characters long; at most ${MAX_IDENTIFIER_LENGTH} are allowed`;
  }
  if (value.includes("\u0000") || /\p{Surrogate}/u.test(value)) {
    return "must not contain \\u0000 or unpaired surrogates";
  }
  if (/[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.test(value)) {
    return "must not contain control characters, line separators or bidi controls";
  }
  return undefined;
}

/**
 * Throws `StoreArgumentError` unless `value` can name a session (or event type, or run) in every
 * backend (see `identifierProblem`).
 *
 * @example
 * checkIdentifier("sessionId", ""); // throws StoreArgumentError
 */
export function checkIdentifier(argument: string, value: unknown): asserts value is string {
  const problem = identifierProblem(value);
  if (problem !== undefined) throw new StoreArgumentError({ argument, detail: problem });
}

/**
 * Throws `StoreArgumentError` unless `value` is an integer ≥ `min`.
 *
 * @example
 * checkInteger("atSeq", -1, 0); // throws StoreArgumentError
 */
export function checkInteger(argument: string, value: unknown, min: number): asserts value is number {
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new StoreArgumentError({ argument, detail: `expected an integer ≥ ${min}, got ${String(value)}` });
  }
}

/**
 * Checks an append's arguments and encodes its events, before anything is written: identifiers,
 * dense numbering from `expectedLastSeq + 1`, and JSON-serializable data.
 *
 * @example
 * const encoded = prepareAppend("s1", events, { expectedLastSeq: 0 });
 */
export function prepareAppend(
  sessionId: string,
  events: readonly SessionEvent[],
  options: { readonly expectedLastSeq: number },
): EncodedEvent[] {
  checkIdentifier("sessionId", sessionId);
  checkInteger("expectedLastSeq", options?.expectedLastSeq, 0);
  if (!Array.isArray(events)) throw new StoreArgumentError({ argument: "events", detail: "expected an array" });
  return events.map((event, index) => {
    const expectedSeq = options.expectedLastSeq + index + 1;
    if (typeof event !== "object" || event === null) {
      throw new StoreArgumentError({ argument: `events[${index}]`, detail: "expected an event object" });
    }
    if (event.seq !== expectedSeq) {
      throw new EventSequenceError({ sessionId, index, expectedSeq, actualSeq: event.seq });
    }
    checkIdentifier(`events[${index}].type`, event.type);
    if (typeof event.at !== "string") {
      throw new StoreArgumentError({ argument: `events[${index}].at`, detail: "expected an ISO 8601 string" });
    }
    if (event.sessionId !== undefined && event.sessionId !== sessionId) {
      throw new StoreArgumentError({
        argument: `events[${index}].sessionId`,
        detail: `"${event.sessionId}" differs from the session appended to ("${sessionId}")`,
      });
    }
    if (event.runId !== undefined) checkIdentifier(`events[${index}].runId`, event.runId);
    return encodeEvent(event);
  });
}

/**
 * `read` options with defaults applied.
 *
 * @example
 * normalizeRead(undefined); // { fromSeq: 1, limit: Number.MAX_SAFE_INTEGER }
 */
export function normalizeRead(options: ReadOptions | undefined): { fromSeq: number; limit: number } {
  const fromSeq = options?.fromSeq ?? 1;
  const limit = options?.limit ?? Number.MAX_SAFE_INTEGER;
  checkInteger("fromSeq", fromSeq, 1);
  checkInteger("limit", limit, 0);
  return { fromSeq, limit };
}

/** A position in the listing order: after every session updated later, or at the same time with a greater id. */
export interface ListPosition {
  readonly updatedAtMs: number;
  readonly sessionId: string;
}

/** A `ListFilter` checked and reduced to comparable values. */
export interface NormalizedListFilter {
  readonly statuses: readonly SessionStatus[] | undefined;
  readonly agent: string | undefined;
  readonly updatedAfterMs: number | undefined;
  readonly updatedBeforeMs: number | undefined;
  /** Lower-cased, matched against `searchTextOf`. */
  readonly search: string | undefined;
  readonly limit: number;
  readonly after: ListPosition | undefined;
}

/**
 * Checks a list filter and decodes its cursor.
 *
 * @example
 * normalizeList({ status: "running", limit: 10 }).statuses; // ["running"]
 */
export function normalizeList(filter: ListFilter | undefined): NormalizedListFilter {
  const limit = filter?.limit ?? DEFAULT_LIST_LIMIT;
  checkInteger("limit", limit, 1);
  if (limit > MAX_LIST_LIMIT) {
    throw new StoreArgumentError({ argument: "limit", detail: `at most ${MAX_LIST_LIMIT}, got ${limit}` });
  }
  const status = filter?.status;
  const statuses = status === undefined ? undefined : typeof status === "string" ? [status] : [...status];
  for (const value of statuses ?? []) {
    if (!SESSION_STATUSES.includes(value)) {
      throw new StoreArgumentError({ argument: "status", detail: `unknown status ${JSON.stringify(value)}` });
    }
  }
  if (filter?.agent !== undefined && typeof filter.agent !== "string") {
    throw new StoreArgumentError({ argument: "agent", detail: "expected a string" });
  }
  if (filter?.search !== undefined && typeof filter.search !== "string") {
    throw new StoreArgumentError({ argument: "search", detail: "expected a string" });
  }
  return {
    statuses,
    agent: filter?.agent,
    updatedAfterMs: toMs("updatedAfter", filter?.updatedAfter),
    updatedBeforeMs: toMs("updatedBefore", filter?.updatedBefore),
    search: filter?.search === undefined || filter.search === "" ? undefined : filter.search.toLowerCase(),
    limit,
    after: filter?.cursor === undefined ? undefined : decodeCursor(filter.cursor),
  };
}

/**
 * The opaque cursor for a position (base64url JSON; `normalizeList` decodes it).
 *
 * @example
 * encodeCursor({ updatedAtMs: 0, sessionId: "s1" }); // "WzAsInMxIl0"
 */
export function encodeCursor(position: ListPosition): string {
  return utf8ToBase64(JSON.stringify([position.updatedAtMs, position.sessionId]), { url: true });
}

function decodeCursor(cursor: string): ListPosition {
  try {
    const value: unknown = JSON.parse(base64ToUtf8(cursor));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === "string") {
      return { updatedAtMs: value[0] as number, sessionId: value[1] };
    }
  } catch {
    // reported below
  }
  throw new StoreArgumentError({ argument: "cursor", detail: "not a cursor returned by list" });
}

function toMs(argument: string, value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new StoreArgumentError({ argument, detail: "expected a Date or ISO 8601 string" });
  return ms;
}

/**
 * Compares two sessions in listing order (newest-updated first, then session id descending by UTF-8 bytes).
 *
 * @example
 * positions.sort(compareListOrder);
 */
export function compareListOrder(left: ListPosition, right: ListPosition): number {
  if (left.updatedAtMs !== right.updatedAtMs) return right.updatedAtMs - left.updatedAtMs;
  return compareUtf8(right.sessionId, left.sessionId);
}
