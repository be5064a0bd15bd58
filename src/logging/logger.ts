import { redact } from "../redaction/redact.js";
import { redactText } from "../redaction/secret-registry.js";

/** The sink Nous writes diagnostics to. Replace it with `setLogger` to route them into your own logging. */
export interface Logger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

const consoleLogger: Logger = {
  error: (message, details) =>
    details ? console.error(`[nous] ${message}`, details) : console.error(`[nous] ${message}`),
  warn: (message, details) =>
    details ? console.warn(`[nous] ${message}`, details) : console.warn(`[nous] ${message}`),
  info: () => {},
  debug: () => {},
};

let current: Logger = consoleLogger;

/** What `getLogger` hands out: the logger in use, behind redaction of every message and detail. */
const redacting: Logger = {
  error: (message, details) => current.error(redactText(message), details && redact(details)),
  warn: (message, details) => current.warn(redactText(message), details && redact(details)),
  info: (message, details) => current.info(redactText(message), details && redact(details)),
  debug: (message, details) => current.debug(redactText(message), details && redact(details)),
};

/**
 * Replace the library's logger. Methods left out keep their defaults (warnings and errors to the console).
 *
 * @example
 * setLogger({ warn: (message) => myLog.warning(message) });
 */
export function setLogger(logger: Partial<Logger>): void {
  current = { ...consoleLogger, ...logger };
}

/** Restore the default console logger. */
export function resetLogger(): void {
  current = consoleLogger;
}

/** The logger in use now, with registered secrets redacted from what it is given (see `registerSecret`). */
export function getLogger(): Logger {
  return redacting;
}
