import { isInlineBinaryPart } from "../session/binary-parts.js";
import { Secret } from "./secret.js";
import { redactionActive, redactText, shortestSecretLength } from "./secret-registry.js";

/**
 * `value` with every `secret()` marker replaced by its placeholder and every registered secret
 * inside any string — object keys included — replaced by `[secret:sha256:…]`. Nothing is mutated:
 * the parts that change are copied, the parts that do not are shared with `value` (so a value with
 * no secret in it comes back as itself). Plain objects and arrays are walked; other objects (a
 * `Date`, a client) are kept as they are, except an `Error`, whose message and stack are redacted in
 * place. The base64 `data` of an image, file or audio part is bytes, not text, and is kept as it is.
 * While no secret is registered and no marker was ever made, returns `value` at once.
 *
 * @example
 * registerSecret("sk-live-0123456789");
 * redact({ headers: { authorization: "Bearer sk-live-0123456789" } });
 * // { headers: { authorization: "Bearer [secret:sha256:…]" } }
 */
export function redact<T>(value: T): T {
  if (!redactionActive()) return value;
  return walk(value, 0, undefined) as T;
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

/**
 * Past this depth `walk` keeps the objects it is inside, to stop at a cycle: only a cyclic value
 * (never event data, perhaps a logger's details) nests this deep, so ordinary values cost no list.
 */
const TRACKED_DEPTH = 32;

function walk(value: unknown, depth: number, ancestors: object[] | undefined): unknown {
  if (typeof value === "string") return value.length < shortestSecretLength() ? value : redactText(value);
  if (typeof value !== "object" || value === null) return value;
  let inside = ancestors;
  if (depth >= TRACKED_DEPTH) {
    if (inside?.includes(value)) return value;
    inside = inside === undefined ? [value] : [...inside, value];
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const redacted = typeof item === "object" || typeof item === "string" ? walk(item, depth + 1, inside) : item;
      if (redacted !== item) {
        copy ??= value.slice();
        copy[index] = redacted;
      }
    }
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    if (Secret.isInstance(value)) return value.placeholder;
    return value instanceof Error ? redactError(value) : value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const item = record[key];
    const redactedKey = key.length < shortestSecretLength() ? key : redactText(key);
    // Numbers, booleans, null and undefined hold nothing to redact: no call for them. The base64 bytes
    // of an image or file part are not text: a secret's characters found in them are a coincidence,
    // and replacing them would corrupt the content, so they are kept as they are.
    const binary = key === "data" && typeof item === "string" && isInlineBinaryPart(record);
    const redacted =
      !binary && (typeof item === "object" || typeof item === "string") ? walk(item, depth + 1, inside) : item;
    if (copy === undefined && (redactedKey !== key || redacted !== item)) {
      copy = prototype === null ? Object.create(null) : {};
      for (let before = 0; before < index; before++)
        define(copy as Record<string, unknown>, keys[before] as string, record[keys[before] as string]);
    }
    if (copy !== undefined) define(copy, redactedKey, redacted);
  }
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
