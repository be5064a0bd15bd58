import { Secret } from "./secret.js";
import { redactionActive, redactText } from "./secret-registry.js";

/**
 * `value` with every `secret()` marker replaced by its placeholder and every registered secret
 * inside any string — object keys included — replaced by `[secret:sha256:…]`. Nothing is mutated:
 * the parts that change are copied, the parts that do not are shared with `value` (so a value with
 * no secret in it comes back as itself). Plain objects and arrays are walked; other objects (a
 * `Date`, a client) are kept as they are, except an `Error`, whose message and stack are redacted in
 * place. While no secret is registered and no marker was ever made, returns `value` at once.
 *
 * @example
 * registerSecret("sk-live-0123456789");
 * redact({ headers: { authorization: "Bearer sk-live-0123456789" } });
 * // { headers: { authorization: "Bearer [secret:sha256:…]" } }
 */
export function redact<T>(value: T): T {
  if (!redactionActive()) return value;
  return walk(value, []) as T;
}

/**
 * Redacts an error's message and stack in place (and its causes'); returns it.
 *
 * @example
 * catch (error) { log(redactError(error)); }
 */
export function redactError<E>(error: E): E {
  if (!redactionActive()) return error;
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const message = redactText(current.message);
    if (message !== current.message) rewrite(current, "message", message);
    if (typeof current.stack === "string") {
      const stack = redactText(current.stack);
      if (stack !== current.stack) rewrite(current, "stack", stack);
    }
    current = current.cause;
  }
  return error;
}

function walk(value: unknown, ancestors: object[]): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value !== "object" || value === null) return value;
  // Only a cyclic value (never event data, perhaps a logger's details) nests this deep.
  if (ancestors.length > 32 && ancestors.includes(value)) return value;
  if (Array.isArray(value)) {
    ancestors.push(value);
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const redacted = walk(item, ancestors);
      if (redacted !== item) {
        copy ??= value.slice();
        copy[index] = redacted;
      }
    }
    ancestors.pop();
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    if (Secret.isInstance(value)) return value.placeholder;
    return value instanceof Error ? redactError(value) : value;
  }
  ancestors.push(value);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const item = record[key];
    const redactedKey = redactText(key);
    const redacted = walk(item, ancestors);
    if (copy === undefined && (redactedKey !== key || redacted !== item)) {
      copy = prototype === null ? Object.create(null) : {};
      for (let before = 0; before < index; before++)
        define(copy as Record<string, unknown>, keys[before] as string, record[keys[before] as string]);
    }
    if (copy !== undefined) define(copy, redactedKey, redacted);
  }
  ancestors.pop();
  return copy ?? value;
}

/** An own data property, even for the key "__proto__". */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Sets an error's own property; a frozen error is left as it is (there is nothing else to do). */
function rewrite(error: Error, key: "message" | "stack", value: string): void {
  try {
    Object.defineProperty(error, key, { value, writable: true, enumerable: false, configurable: true });
  } catch {
    // not configurable: keep it
  }
}
