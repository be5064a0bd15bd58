import { UserError } from "./nous-error.js";

export type ContextUpdateProblem =
  | "invalid_key"
  | "merge_value_not_object"
  | "append_target_not_list"
  | "invalid_event_type"
  | "unknown_operation";

/**
 * A context update operation is malformed or cannot apply to the current deps.
 * When it is thrown, nothing of the update has been applied.
 */
export class ContextUpdateError extends UserError {
  readonly code = "context_update_invalid";
  readonly operation: string;
  readonly key: unknown;
  readonly problem: ContextUpdateProblem;

  constructor(fields: { operation: string; key: unknown; problem: ContextUpdateProblem; detail: string }) {
    super({ message: `ContextUpdate ${fields.operation} on key ${describeKey(fields.key)}: ${fields.detail}` });
    this.operation = fields.operation;
    this.key = fields.key;
    this.problem = fields.problem;
  }
}

function describeKey(key: unknown): string {
  return typeof key === "string" ? JSON.stringify(key) : `<${key === null ? "null" : typeof key}>`;
}
