import { LimitError, NousError } from "../errors/index.js";

/** The limits a code-mode program runs under. */
export type CodeLimitName = "time" | "memory" | "stack" | "toolCalls" | "output" | "console";

/** The `CodeLimits` option that sets each limit. */
export const codeLimitOption = Object.freeze({
  time: "timeMs",
  memory: "memoryBytes",
  stack: "stackBytes",
  toolCalls: "maxToolCalls",
  output: "maxOutputBytes",
  console: "maxConsoleBytes",
} as const satisfies Record<CodeLimitName, string>);

/**
 * A code-mode program breached one of its limits and was stopped. The host is unaffected. The
 * message names the limit, its option and value: `Code limit "memory" exceeded (memoryBytes
 * 67108864): …`.
 *
 * @example
 * if (error instanceof CodeLimitError && error.limit === "memory") retryWith({ memoryBytes: error.allowed * 2 });
 */
export class CodeLimitError extends LimitError {
  readonly code = "code_limit_exceeded";
  readonly limit: CodeLimitName;
  /** The configured bound (milliseconds, bytes or calls). */
  readonly allowed: number;

  constructor(fields: { limit: CodeLimitName; allowed: number; message: string }) {
    super({
      message: `Code limit "${fields.limit}" exceeded (${codeLimitOption[fields.limit]} ${fields.allowed}): ${fields.message}`,
    });
    this.limit = fields.limit;
    this.allowed = fields.allowed;
  }
}

/** The program itself failed: a syntax error, an uncaught exception, or a promise that never settles. */
export class CodeExecutionError extends NousError {
  readonly code = "code_execution_failed";
  readonly fault = "tool" as const;
}
