import { NousError } from "../errors/nous-error.js";
import type { RecordedError } from "./events.js";

/**
 * An error as the log keeps it: its stable `code` (`unexpected_error` for errors that are not
 * Nous's), its class name, its message and the HTTP `status` when it has one.
 *
 * @example
 * recordedError(new RateLimitError({ provider: "openai", message: "slow down", status: 429 }));
 * // { code: "provider_rate_limit", name: "RateLimitError", message: "openai: slow down", status: 429 }
 */
export function recordedError(error: unknown): RecordedError {
  if (!(error instanceof Error)) return { code: "unexpected_error", name: typeof error, message: String(error) };
  const code = NousError.isInstance(error) ? error.code : "unexpected_error";
  const status = (error as { status?: unknown }).status;
  const name = error.constructor?.name && error.constructor.name !== "Object" ? error.constructor.name : error.name;
  return { code, name, message: error.message, ...(typeof status === "number" ? { status } : {}) };
}
