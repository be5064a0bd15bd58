import { redactText } from "../redaction/secret-registry.js";
import type { SessionEvent } from "../session/events.js";

const marker = Symbol.for("nous.error");

/** Who is at fault for a failure. Callers branch on this to decide whether to retry, fix input or report a bug. */
export type ErrorFault =
  | "user"
  | "model"
  | "provider"
  | "tool"
  | "limit"
  | "cancelled"
  | "conflict"
  | "store"
  | "internal";

export interface NousErrorOptions {
  message: string;
  cause?: unknown;
}

/**
 * The base of every error Nous throws. Each subclass has a stable `code` and a `fault`.
 *
 * @example
 * try { update.toDeps(deps) } catch (error) {
 *   if (NousError.isInstance(error)) console.log(error.code, error.fault);
 * }
 */
export abstract class NousError extends Error {
  abstract readonly code: string;
  abstract readonly fault: ErrorFault;
  readonly [marker] = true;
  /** The run's session log up to the failure, when the error ended a run (so it can be inspected or resumed). */
  log?: readonly SessionEvent[];

  /** The message is redacted (see `registerSecret`): an error never carries a registered secret. */
  constructor({ message, cause }: NousErrorOptions) {
    super(redactText(message), cause === undefined ? undefined : { cause });
    this.name = new.target.name;
  }

  /** True for any Nous error, even one thrown by another installed copy of the package. */
  static isInstance(value: unknown): value is NousError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** The caller (application or tool author) passed something invalid. Fix the input; retrying will not help. */
export abstract class UserError extends NousError {
  readonly fault = "user" as const;
}
