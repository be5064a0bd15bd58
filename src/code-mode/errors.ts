import { LimitError, NousError } from "../errors/index.js";

/** The limits a code-mode program runs under. */
export type CodeLimitName = "time" | "memory" | "stack" | "toolCalls" | "output" | "console";

/** A code-mode program breached one of its limits and was stopped. The host is unaffected. */
export class CodeLimitError extends LimitError {
  readonly code = "code_limit_exceeded";
  readonly limit: CodeLimitName;
  /** The configured bound (milliseconds, bytes or calls). */
  readonly allowed: number;

  constructor(fields: { limit: CodeLimitName; allowed: number; message: string }) {
    super({ message: `Code limit "${fields.limit}" exceeded (${fields.allowed}): ${fields.message}` });
    this.limit = fields.limit;
    this.allowed = fields.allowed;
  }
}

/** The program itself failed: a syntax error, an uncaught exception, or a promise that never settles. */
export class CodeExecutionError extends NousError {
  readonly code = "code_execution_failed";
  readonly fault = "tool" as const;
}
