import { SessionLogFormatError } from "../errors/session-log-format-error.js";
import { isSurfaceType, type SessionEvent } from "./events.js";
import { SessionLog } from "./session-log.js";

/** The version of the serialized session log format this release writes and reads. */
export const SESSION_LOG_SCHEMA_VERSION = 1;

/** The JSON document a serialized log is. */
export interface SerializedSessionLog {
  readonly schemaVersion: typeof SESSION_LOG_SCHEMA_VERSION;
  readonly events: readonly SessionEvent[];
}

/**
 * The log as a JSON string, tagged with `schemaVersion`.
 *
 * @example
 * const text = serializeLog(context.log);
 * deserializeLog(text).events; // the same events
 */
export function serializeLog(log: SessionLog | Iterable<SessionEvent>): string {
  const events = log instanceof SessionLog ? log.events : [...log];
  return JSON.stringify({ schemaVersion: SESSION_LOG_SCHEMA_VERSION, events } satisfies SerializedSessionLog);
}

/**
 * Reads a log written by `serializeLog` (a JSON string or the parsed document). Throws
 * `SessionLogFormatError` when the version is missing or unknown, or an event is malformed.
 */
export function deserializeLog(input: string | unknown): SessionLog {
  let document: unknown = input;
  if (typeof input === "string") {
    try {
      document = JSON.parse(input);
    } catch (cause) {
      throw new SessionLogFormatError({ path: "$", detail: "not valid JSON", cause });
    }
  }
  if (!isRecord(document)) throw new SessionLogFormatError({ path: "$", detail: "expected an object" });
  if (!("schemaVersion" in document)) throw new SessionLogFormatError({ path: "$.schemaVersion", detail: "missing" });
  if (document.schemaVersion !== SESSION_LOG_SCHEMA_VERSION) {
    throw new SessionLogFormatError({
      path: "$.schemaVersion",
      detail: `unsupported version ${JSON.stringify(document.schemaVersion)} (this release reads ${SESSION_LOG_SCHEMA_VERSION})`,
    });
  }
  if (!Array.isArray(document.events))
    throw new SessionLogFormatError({ path: "$.events", detail: "expected an array" });
  let log = SessionLog.empty();
  document.events.forEach((event: unknown, index: number) => {
    const path = `$.events[${index}]`;
    checkEvent(event, path);
    if (index > 0 && event.seq !== log.nextSeq) {
      throw new SessionLogFormatError({ path: `${path}.seq`, detail: `expected ${log.nextSeq}, got ${event.seq}` });
    }
    log = log.appendEvent(event as unknown as SessionEvent);
  });
  return log;
}

function checkEvent(event: unknown, path: string): asserts event is Record<string, unknown> & { seq: number } {
  if (!isRecord(event)) throw new SessionLogFormatError({ path, detail: "expected an object" });
  if (!Number.isInteger(event.seq) || (event.seq as number) < 1) {
    throw new SessionLogFormatError({ path: `${path}.seq`, detail: "expected a positive integer" });
  }
  if (typeof event.at !== "string")
    throw new SessionLogFormatError({ path: `${path}.at`, detail: "expected a string" });
  if (typeof event.type !== "string" || event.type === "") {
    throw new SessionLogFormatError({ path: `${path}.type`, detail: "expected a non-empty string" });
  }
  if (!("data" in event)) throw new SessionLogFormatError({ path: `${path}.data`, detail: "missing" });
  if (isSurfaceType(event.type) && !isRecord(event.data)) {
    throw new SessionLogFormatError({ path: `${path}.data`, detail: `a ${event.type} needs an object` });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
