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

/** The logger in use now. */
export function getLogger(): Logger {
  return current;
}
