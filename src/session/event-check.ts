import type { SessionEvent } from "./events.js";

/** A check of one event; throws to reject it. */
export type EventCheck = (event: SessionEvent) => void;

let installed: EventCheck | undefined;

/**
 * Installs a check that every event an `AgentContext` appends goes through (and that the store
 * conformance suite runs on the events it reads back), or removes it with `undefined`. A test hook:
 * the test setup installs a validator of `schema/session-log.json`. Unset, it costs one comparison.
 *
 * @example
 * setEventCheck((event) => {
 *   if (event.type === "audit" && event.data === null) throw new Error("audit without data");
 * });
 */
export function setEventCheck(check: EventCheck | undefined): void {
  installed = check;
}

/** The installed check, if any. */
export function currentEventCheck(): EventCheck | undefined {
  return installed;
}
