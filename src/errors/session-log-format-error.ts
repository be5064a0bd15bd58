import { UserError } from "./nous-error.js";

/** Serialized session log data is not in a format this version of Nous can read. */
export class SessionLogFormatError extends UserError {
  readonly code = "session_log_format";
  readonly path: string;

  constructor(fields: { path: string; detail: string; cause?: unknown }) {
    super({ message: `Invalid session log at ${fields.path}: ${fields.detail}`, cause: fields.cause });
    this.path = fields.path;
  }
}
