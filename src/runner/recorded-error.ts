import { NousError } from "../errors/nous-error.js";
import type { RecordedError } from "../session/events.js";

/**
 * An error as the log keeps it: its stable `code` (`unexpected_error` for an error Nous did not
 * make), its class name, its message and its HTTP status when it has one.
 *
 * @example
 * recordedError(new TypeError("boom")); // { code: "unexpected_error", name: "TypeError", message: "boom" }
 */
export function recordedError(error: unknown): RecordedError {
  const code = NousError.isInstance(error) ? error.code : "unexpected_error";
  const name = error instanceof Error ? error.constructor.name || error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? { code, name, message, status } : { code, name, message };
}
