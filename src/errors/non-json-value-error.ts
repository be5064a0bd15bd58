import { NousError } from "./nous-error.js";

/**
 * A value a run was to record — a tool's result, a context-update value, an event's data — is not
 * JSON data and JSON cannot stand in for it faithfully: a bigint, a cycle, nesting deeper than
 * `MAX_JSON_DEPTH`, a Map, Set, Promise, RegExp, Error, typed array or a class instance without
 * `toJSON`. `path` names the offending value (`$.items[3].when`). The tool's author is at fault: the
 * call fails with this message as its error result, and the run goes on.
 *
 * @example
 * // execute: () => ({ total: 10n })  → the model gets
 * // Tool "sum" failed: its result is not JSON data at $.total: a bigint (JSON has no bigints)
 */
export class NonJsonValueError extends NousError {
  readonly code = "non_json_value";
  readonly fault = "tool" as const;
  /** Where the value sits, from `$` (the value itself). */
  readonly path: string;
  /** What it is and why JSON cannot hold it, e.g. `a Map (JSON would make it {})`. */
  readonly reason: string;

  constructor(fields: { path: string; reason: string; subject?: string }) {
    super({ message: `${fields.subject ?? "The value"} is not JSON data at ${fields.path}: ${fields.reason}` });
    this.path = fields.path;
    this.reason = fields.reason;
  }
}
