import { isPlainObject, setOwn } from "../context/plain-object.js";
import { NonJsonValueError } from "../errors/non-json-value-error.js";

/**
 * How deeply a recorded value may nest. `JSON.stringify` recurses, and V8 overflows its stack a few
 * thousand levels down; a value past this depth could be checked but never recorded.
 */
export const MAX_JSON_DEPTH = 1000;

/** Where a value stops being JSON data, and why (`reason` reads after "is": "a bigint (…)"). */
export interface JsonProblem {
  /** Like `$.items[3].when`; a deep path shows its start and end. */
  readonly path: string;
  readonly reason: string;
}

/**
 * How far the walk goes from plain JSON data. `exact`: only what JSON holds as it is (plain objects,
 * arrays, strings, booleans, null, finite numbers; undefined properties, which JSON drops). `strict`:
 * also what JSON converts without loss of meaning (`toJSON()`, boxed primitives). `normalize`: also
 * what JSON converts by dropping (undefined, functions and symbols become null in a list, vanish in
 * an object; NaN and ±Infinity become null), building the converted copy.
 */
type Mode = "exact" | "strict" | "normalize";

/** Built-in objects JSON would silently turn into `{}`. */
const lossyBuiltins: readonly [new (...args: never[]) => object, string][] = [
  [Map, "a Map"],
  [Set, "a Set"],
  [WeakMap, "a WeakMap"],
  [WeakSet, "a WeakSet"],
  [Promise, "a Promise"],
  [RegExp, "a RegExp"],
  [Error, "an Error"],
  [ArrayBuffer, "an ArrayBuffer"],
];

/**
 * The one rule for values a run records (tool results, context-update values, event data): the
 * JSON data `value` stands for, as `JSON.parse(JSON.stringify(value))` would give it — `toJSON()`
 * honoured (a Date becomes its ISO string), undefined, functions and symbols dropped from objects and
 * null in lists (and at the root), NaN and ±Infinity null — or, for what JSON cannot represent
 * faithfully, a `NonJsonValueError` naming the path: a bigint, a cycle, nesting deeper than
 * `MAX_JSON_DEPTH`, a Map, Set, Promise, RegExp, Error, typed array or any other class instance
 * without `toJSON` (JSON would keep only its own fields, or none). Returns `value` itself, not a copy,
 * when it is JSON data already. Any depth is safe: the walk stops at `MAX_JSON_DEPTH`.
 *
 * @example
 * toJsonValue({ when: new Date(0), skip: undefined, ratio: Number.NaN }); // { when: "1970-01-01T00:00:00.000Z", ratio: null }
 * toJsonValue({ items: [1, 2n] }); // throws NonJsonValueError: $.items[1] is a bigint (JSON has no bigints)
 */
export function toJsonValue(value: unknown, path = "$"): unknown {
  if (isJsonPrimitive(value) || walk(value, "exact", path) === undefined) return value;
  const outcome = walk(value, "normalize", path);
  if (outcome instanceof Converted) return outcome.value;
  throw new NonJsonValueError(outcome ?? { path, reason: "not JSON data" });
}

/**
 * Where `value` is not exactly JSON data (see `toJsonValue`; here a Date, NaN or a function property
 * is a problem too, since JSON would change it), as `"$.items[2] (a function …)"`; undefined when it
 * is JSON all the way down. Tells state (JSON) from live dependencies (clients, functions).
 *
 * @example
 * findNonJson({ items: [1, () => 2] }); // "$.items[1] (a function (JSON would make it null))"
 */
export function findNonJson(value: unknown, path = "$"): string | undefined {
  const problem = walk(value, "exact", path);
  return problem instanceof Converted || problem === undefined ? undefined : `${problem.path} (${problem.reason})`;
}

/**
 * The first value JSON would not store as it is, when JSON may call `toJSON()` but must drop or null
 * nothing: what a store checks before it writes an event, so what it reads back is what was given.
 *
 * @example
 * findJsonLoss({ n: Number.NaN }, "data"); // { path: "data.n", reason: "NaN (JSON would make it null)" }
 */
export function findJsonLoss(value: unknown, path = "$"): JsonProblem | undefined {
  const problem = walk(value, "strict", path);
  return problem instanceof Converted ? undefined : problem;
}

class Converted {
  constructor(readonly value: unknown) {}
}

/** Thrown inside the walk at the first problem; caught by `walk`. */
class Found {
  constructor(readonly reason: string) {}
}

/** JSON leaves this property out of its object. */
const DROP: unique symbol = Symbol("drop");

/** The problem, or (normalize) the converted value, or undefined (nothing to report, nothing built). */
function walk(value: unknown, mode: Mode, root: string): JsonProblem | Converted | undefined {
  const walker = new Walker(mode);
  try {
    const converted = walker.value(value, "", false, 0);
    return mode === "normalize" ? new Converted(converted === DROP ? null : converted) : undefined;
  } catch (error) {
    // Recursion is bounded by MAX_JSON_DEPTH; a stack that was nearly full when the walk began is not.
    if (error instanceof RangeError) return { path: pathOf(walker.keys, root), reason: "nested too deeply to walk" };
    if (!(error instanceof Found)) throw error;
    return { path: pathOf(walker.keys, root), reason: error.reason };
  }
}

/**
 * One walk. Recursive, for speed: nesting is refused past `MAX_JSON_DEPTH` levels, which bounds the
 * recursion (two frames a level). `keys` is the path to the value being walked, `ancestors` the
 * objects on it (a repeat is a cycle; a value shared by siblings is not).
 */
class Walker {
  readonly keys: (string | number)[] = [];
  readonly #ancestors: object[] = [];
  readonly #building: boolean;

  constructor(readonly mode: Mode) {
    this.#building = mode === "normalize";
  }

  /** The JSON value for `value` (itself unless normalizing), or DROP when JSON leaves it out of its object. */
  value(value: unknown, key: string, inObject: boolean, depth: number): unknown {
    switch (typeof value) {
      case "string":
      case "boolean":
        return value;
      case "number":
        if (!Number.isFinite(value)) return this.#lost(value, inObject);
        // JSON writes -0 as 0: a store keeps it, exact JSON data has none.
        if (value !== 0 || 1 / value > 0 || this.mode === "strict") return value;
        if (this.#building) return 0;
        throw new Found("-0 (JSON would make it 0)");
      case "bigint":
        throw new Found("a bigint (JSON has no bigints)");
      case "object":
        return value === null ? null : this.object(value, key, inObject, depth);
      default: // undefined, a function, a symbol
        return this.#lost(value, inObject);
    }
  }

  /**
   * A value JSON loses: a non-finite number becomes null; undefined, a function or a symbol is
   * dropped from an object and null elsewhere. Converted when normalizing, else a problem (except an
   * undefined property, which every JSON consumer expects to vanish).
   */
  #lost(value: unknown, inObject: boolean): unknown {
    const dropped = inObject && typeof value !== "number";
    if (dropped && (value === undefined || this.#building)) return DROP;
    if (this.#building) return null;
    throw new Found(`${describePrimitive(value)} (JSON would ${dropped ? "drop it" : "make it null"})`);
  }

  object(value: object, key: string, inObject: boolean, depth: number): unknown {
    if (this.mode !== "exact") {
      const toJson = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJson === "function") {
        let converted: unknown;
        try {
          converted = toJson.call(value, key);
        } catch (error) {
          throw new Found(`an object whose toJSON() threw (${error instanceof Error ? error.message : String(error)})`);
        }
        // JSON calls toJSON once: an object it returns is serialized as it is.
        if (typeof converted !== "object" || converted === null) return this.value(converted, key, inObject, depth);
        return this.#container(converted, depth);
      }
      if (value instanceof Number || value instanceof String || value instanceof Boolean) {
        return this.value(value.valueOf(), key, inObject, depth);
      }
    }
    return this.#container(value, depth);
  }

  #container(value: object, depth: number): unknown {
    const ancestors = this.#ancestors;
    if (ancestors.includes(value)) throw new Found("a cycle (the value contains itself)");
    if (depth >= MAX_JSON_DEPTH) throw new Found(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const keys = this.keys;
    if (Array.isArray(value)) {
      const copy = this.#building ? new Array<unknown>(value.length) : undefined;
      ancestors.push(value);
      for (let index = 0; index < value.length; index++) {
        let child: unknown = value[index];
        if (!isJsonPrimitive(child)) {
          keys.push(index);
          child = this.value(child, String(index), false, depth + 1);
          keys.pop();
        }
        if (copy !== undefined) copy[index] = child;
      }
      ancestors.pop();
      return copy ?? value;
    }
    if (!isPlainObject(value)) throw new Found(describeObject(value, this.mode));
    const copy: Record<string, unknown> | undefined = this.#building ? {} : undefined;
    ancestors.push(value);
    for (const childKey of Object.keys(value)) {
      let child: unknown = value[childKey];
      if (!isJsonPrimitive(child)) {
        keys.push(childKey);
        child = this.value(child, childKey, true, depth + 1);
        keys.pop();
        if (child === DROP) continue;
      }
      if (copy === undefined) continue;
      if (childKey === "__proto__") setOwn(copy, childKey, child);
      else copy[childKey] = child;
    }
    ancestors.pop();
    return copy ?? value;
  }
}

/** A string, boolean, finite number (not -0) or null: JSON data as it is. */
function isJsonPrimitive(value: unknown): boolean {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value) && (value !== 0 || 1 / value > 0))
  );
}

function describePrimitive(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (value === undefined) return "undefined";
  return `a ${typeof value}`;
}

function describeObject(value: object, mode: Mode): string {
  if (mode === "exact" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return `${nameOf(value)} (JSON would record what its toJSON() returns)`;
  }
  for (const [type, name] of lossyBuiltins) {
    if (value instanceof type) return `${name} (JSON would make it {})`;
  }
  if (ArrayBuffer.isView(value)) return `a typed array (${value.constructor.name}; JSON would make it an object)`;
  return `${nameOf(value)} (JSON would keep only its own fields)`;
}

function nameOf(value: object): string {
  const name = (value.constructor as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" ? `an instance of ${name}` : "an instance of a class";
}

function pathOf(keys: readonly (string | number)[], root: string): string {
  const parts = keys.map((key) => (typeof key === "number" ? `[${key}]` : formatKey(key)));
  // A path a thousand levels deep is no help to read: its start and end are.
  if (parts.length > 24)
    return `${root}${parts.slice(0, 8).join("")}…(${parts.length - 12} more)…${parts.slice(-4).join("")}`;
  return root + parts.join("");
}

function formatKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * The JSON form of a call's arguments for its recorded intent: the arguments the tool runs with can
 * hold values a schema made (a zod transform's Date becomes its ISO string); when they cannot be
 * made JSON at all (a bigint), the arguments as requested are recorded instead.
 *
 * @example
 * intentArgs({ when: new Date(0) }, () => ({ when: "1970-01-01" })); // { when: "1970-01-01T00:00:00.000Z" }
 */
export function intentArgs(args: unknown, requested: () => unknown): unknown {
  try {
    return toJsonValue(args);
  } catch {
    return toJsonValue(requested());
  }
}
