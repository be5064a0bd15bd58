import { secretPlaceholder } from "./placeholder.js";
import { registerSecretsIn } from "./secret-registry.js";

/** Deps paths marked secret (the agent option `secret: ["apiKey", "db.password"]`), split into keys. */
export type SecretPaths = readonly (readonly string[])[];

/**
 * Parses the agent option `secret`: each entry a deps key, or a dotted path into plain objects.
 *
 * @example
 * parseSecretPaths(["apiKey", "db.password"]); // [["apiKey"], ["db", "password"]]
 */
export function parseSecretPaths(paths: readonly string[] | undefined): SecretPaths {
  if (paths === undefined || paths.length === 0) return [];
  return paths.map((path) => path.split(".")).filter((keys) => keys.every((key) => key !== ""));
}

/** Registers (see `registerSecret`) the strings found at each secret path of `deps`. */
export function registerSecretPaths(deps: unknown, paths: SecretPaths): void {
  for (const path of paths) {
    const found = valueAt(deps, path);
    if (found !== undefined) registerSecretsIn(found);
  }
}

/** The placeholder of a whole value: its string, or its JSON, hashed. */
export function placeholderOf(value: unknown): string {
  return secretPlaceholder(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));
}

/**
 * A deps operation as it is recorded when `paths` are secret: a `set`/`merge` value (or an `append`
 * item) at a secret path — or holding one — has that part replaced by its placeholder, after its
 * strings are registered. The operation itself when it touches no secret path.
 */
export function redactOperation<T extends { readonly op: string; readonly key: string }>(
  operation: T,
  paths: SecretPaths,
): T {
  let result = operation;
  for (const path of paths) {
    if (path[0] !== operation.key) continue;
    const rest = path.slice(1);
    const field =
      operation.op === "append" ? "item" : operation.op === "set" || operation.op === "merge" ? "value" : undefined;
    if (field === undefined) continue;
    const current = (result as Record<string, unknown>)[field];
    const replaced = operation.op === "append" && rest.length > 0 ? current : replaceAt(current, rest);
    if (replaced !== current) result = { ...result, [field]: replaced };
  }
  return result;
}

/**
 * `target` with each secret path set to what `source` holds there (when it holds something): secret
 * deps are never restored from the log, whose record holds placeholders; the caller supplies them.
 */
export function restoreSecretPaths(target: Record<string, unknown>, source: unknown, paths: SecretPaths): void {
  for (const path of paths) {
    const value = valueAt(source, path);
    if (value === undefined) continue;
    let holder: Record<string, unknown> = target;
    for (const key of path.slice(0, -1)) {
      const next = holder[key];
      const copy: Record<string, unknown> = isPlain(next) ? { ...next } : {};
      holder[key] = copy;
      holder = copy;
    }
    holder[path.at(-1) as string] = value;
  }
}

function replaceAt(value: unknown, rest: readonly string[]): unknown {
  if (rest.length === 0) {
    if (value === undefined) return value;
    registerSecretsIn(value);
    return placeholderOf(value);
  }
  if (!isPlain(value)) return value;
  const key = rest[0] as string;
  if (!Object.hasOwn(value, key)) return value;
  const inner = replaceAt(value[key], rest.slice(1));
  return inner === value[key] ? value : { ...value, [key]: inner };
}

/** The value at `path` (own keys of objects only), or undefined. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
