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

/** A value on the walk's stack, with the way back to the root for its path. */
interface Visit {
  readonly value: unknown;
  readonly parent: Visit | undefined;
  /** The property or index in the parent (0 for the root, which has no parent). */
  readonly key: string | number;
  readonly depth: number;
  /** Where the converted value goes (normalize): the parent's copy, at `key`. */
  readonly target: Container | undefined;
}

type Container = unknown[] | Record<string, unknown>;

/** Marks the end of an object's children: it leaves the current path (cycles are only on-path repeats). */
class Leave {
  constructor(readonly value: object) {}
}

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
 * when it is JSON data already. Iterative: any depth is walked without growing the call stack.
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

/** The problem, or (normalize) the converted value, or undefined (nothing to report, nothing built). */
function walk(value: unknown, mode: Mode, root: string): JsonProblem | Converted | undefined {
  const building = mode === "normalize";
  const holder: unknown[] = [null];
  const onPath = new Set<object>();
  const stack: (Visit | Leave)[] = [{ value, parent: undefined, key: 0, depth: 0, target: holder }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit | Leave;
    if (visit instanceof Leave) {
      onPath.delete(visit.value);
      continue;
    }
    const isRoot = visit.parent === undefined;
    const key = visit.key;
    // The root is read like a list item: undefined there becomes null.
    const inObject = !isRoot && typeof key === "string";
    const problem = (reason: string): JsonProblem => ({ path: pathOf(visit, root), reason });
    let item = visit.value;
    if (mode !== "exact" && typeof item === "object" && item !== null) {
      const toJson = (item as { toJSON?: unknown }).toJSON;
      if (typeof toJson === "function") {
        try {
          item = toJson.call(item, isRoot ? "" : String(key));
        } catch (error) {
          return problem(`an object whose toJSON() threw (${error instanceof Error ? error.message : String(error)})`);
        }
      } else if (item instanceof Number || item instanceof String || item instanceof Boolean) {
        item = item.valueOf();
      }
    }
    if (typeof item !== "object" || item === null) {
      const kind = primitiveKind(item);
      if (kind === "bigint") return problem("a bigint (JSON has no bigints)");
      if (kind === "drop" && inObject) {
        // JSON drops undefined properties, as every JSON consumer expects; a function or symbol is lost.
        if (building) remove(visit.target, key);
        else if (item !== undefined) return problem(`${describePrimitive(item)} (JSON would drop it)`);
        continue;
      }
      if (kind === "keep") put(visit.target, key, item);
      else if (building) put(visit.target, key, null);
      else return problem(`${describePrimitive(item)} (JSON would make it null)`);
      continue;
    }
    if (onPath.has(item)) return problem("a cycle (the value contains itself)");
    if (visit.depth >= MAX_JSON_DEPTH) return problem(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const depth = visit.depth + 1;
    if (Array.isArray(item)) {
      const copy = building ? new Array<unknown>(item.length).fill(null) : undefined;
      put(visit.target, key, copy);
      onPath.add(item);
      stack.push(new Leave(item));
      // Children in reverse, so the first offending value in document order is the one reported.
      for (let index = item.length - 1; index >= 0; index--) {
        const child: unknown = item[index];
        if (isJsonPrimitive(child)) {
          if (copy !== undefined) copy[index] = child;
        } else if (typeof child === "object" || !building || typeof child === "bigint") {
          stack.push({ value: child, parent: visit, key: index, depth, target: copy });
        } // else: undefined, a function, a symbol or a non-finite number: null in the copy
      }
      continue;
    }
    if (!isPlainObject(item)) return problem(describeObject(item, mode));
    const copy: Record<string, unknown> | undefined = building ? {} : undefined;
    put(visit.target, key, copy);
    onPath.add(item);
    stack.push(new Leave(item));
    const pending: Visit[] = [];
    for (const childKey of Object.keys(item)) {
      const child = item[childKey];
      if (child === undefined) continue; // JSON drops undefined properties
      if (isJsonPrimitive(child)) {
        if (copy !== undefined) put(copy, childKey, child);
      } else if (typeof child === "object" || !building || typeof child === "bigint") {
        // An object holds its key's place now, so the copy keeps the original key order.
        if (copy !== undefined) put(copy, childKey, null);
        pending.push({ value: child, parent: visit, key: childKey, depth, target: copy });
      } else if (typeof child === "number") {
        if (copy !== undefined) put(copy, childKey, null); // NaN, ±Infinity
      } // else: a function or a symbol, dropped
    }
    for (let index = pending.length - 1; index >= 0; index--) stack.push(pending[index] as Visit);
  }
  return building ? new Converted(holder[0]) : undefined;
}

/** A string, boolean, finite number or null: JSON data as it is. */
function isJsonPrimitive(value: unknown): boolean {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

type PrimitiveKind = "keep" | "null" | "drop" | "bigint";

function primitiveKind(value: unknown): PrimitiveKind {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "object": // null (objects are handled before)
      return "keep";
    case "number":
      return Number.isFinite(value) ? "keep" : "null";
    case "bigint":
      return "bigint";
    default: // undefined, function, symbol
      return "drop";
  }
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

/** Writes a converted value into its parent's copy (an own data property, even for "__proto__"). */
function put(target: Container | undefined, key: string | number, value: unknown): void {
  if (target === undefined) return;
  if (Array.isArray(target)) target[key as number] = value;
  else if (key === "__proto__") setOwn(target, key, value);
  else target[key as string] = value;
}

function remove(target: Container | undefined, key: string | number): void {
  if (target !== undefined && !Array.isArray(target)) delete target[key as string];
}

function pathOf(visit: Visit, root: string): string {
  const parts: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) {
    parts.push(typeof at.key === "number" ? `[${at.key}]` : formatKey(at.key));
  }
  parts.reverse();
  // A path a thousand levels deep is no help to read: its start and end are.
  if (parts.length > 24)
    return `${root}${parts.slice(0, 8).join("")}…(${parts.length - 12} more)…${parts.slice(-4).join("")}`;
  return root + parts.join("");
}

function formatKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
