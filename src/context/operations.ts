/** Replace the value at `key`. */
export interface SetOperation {
  readonly op: "set";
  readonly key: string;
  readonly value: unknown;
}

/** Deep-merge a plain object into the value at `key`. */
export interface MergeOperation {
  readonly op: "merge";
  readonly key: string;
  readonly value: Readonly<Record<string, unknown>>;
}

/** Append `item` to the list at `key` (absent, null or undefined starts a new list). */
export interface AppendOperation {
  readonly op: "append";
  readonly key: string;
  readonly item: unknown;
}

/** Remove `key`. */
export interface DeleteOperation {
  readonly op: "delete";
  readonly key: string;
}

/** Record a bookkeeping session event; touches no deps. */
export interface LogEventOperation {
  readonly op: "log_event";
  readonly type: string;
  readonly data: unknown;
}

/** An operation that changes deps. */
export type DepsOperation = SetOperation | MergeOperation | AppendOperation | DeleteOperation;

/** One step of a `ContextUpdate`, tagged by `op`. */
export type ContextOperation = DepsOperation | LogEventOperation;

export function isDepsOperation(operation: ContextOperation): operation is DepsOperation {
  return operation.op !== "log_event";
}
