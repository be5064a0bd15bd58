import { afterEach } from "vitest";
import { resetLogger, setLogger } from "../logging/logger.js";

export interface CapturedLog {
  level: "error" | "warn" | "info" | "debug";
  message: string;
  details?: Record<string, unknown>;
}

/** Routes the library's logger into an array for the current test; restored after each test. */
export function captureLogger(): CapturedLog[] {
  const entries: CapturedLog[] = [];
  setLogger({
    error: (message, details) => entries.push({ level: "error", message, details }),
    warn: (message, details) => entries.push({ level: "warn", message, details }),
    info: (message, details) => entries.push({ level: "info", message, details }),
    debug: (message, details) => entries.push({ level: "debug", message, details }),
  });
  return entries;
}

afterEach(() => resetLogger());

/** A deep copy for before/after comparisons that keeps prototypes and own "__proto__" keys. */
export function snapshot<T>(value: T): T {
  if (Array.isArray(value)) return value.map(snapshot) as T;
  if (typeof value !== "object" || value === null) return value;
  const copy = Object.create(Object.getPrototypeOf(value));
  for (const key of Object.keys(value)) {
    const descriptor = { value: snapshot((value as Record<string, unknown>)[key]), writable: true, enumerable: true };
    Object.defineProperty(copy, key, { ...descriptor, configurable: true });
  }
  return copy;
}
