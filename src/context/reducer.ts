import { ContextUpdateError } from "../errors/context-update-error.js";
import { mergeInto } from "./deep-merge.js";
import type { ContextOperation } from "./operations.js";
import { copyObject, getOwn, isPlainObject, type Owned, type PlainObject, setOwn } from "./plain-object.js";

export type { Owned } from "./plain-object.js";

/**
 * The one reducer: folds operations, in order, over `initial` and returns the new deps map.
 * It never mutates `initial` or anything reachable from it; lists and objects it creates itself are
 * written in place, so n appends to one key cost O(n) in total. It validates every operation, so
 * operations read back from a log get the same checks as built ones, and throws on the first bad
 * one; since nothing was mutated, nothing of the update is applied.
 */
export function foldOperations(initial: object, operations: Iterable<ContextOperation>): PlainObject {
  return fold(copyObject(initial as PlainObject), operations, new Set<object>());
}

/**
 * The same fold for a run that keeps what its earlier folds built: lists and objects in `owned`
 * (the runner's, and forgotten as soon as anyone reads deps) are written in place, so an append is
 * O(1) however long the list. Still all-or-nothing: an update the fold could reject is folded the
 * copying way instead, which throws before anything is changed.
 */
export function foldOwned(initial: object, operations: readonly ContextOperation[], owned: Owned): PlainObject {
  if (!foldsCleanly(initial as PlainObject, operations)) return foldOperations(initial, operations);
  const deps = owned.has(initial) ? (initial as PlainObject) : copyObject(initial as PlainObject);
  owned.add(deps);
  return fold(deps, operations, owned);
}

/**
 * Whether folding cannot throw: the fold's own checks, run without building anything, plus a walk
 * of what each key will hold so an `append` onto a non-list is caught. Conservative.
 */
function foldsCleanly(initial: PlainObject, operations: readonly ContextOperation[]): boolean {
  const list: unknown[] = [];
  const after = new Map<string, unknown>();
  try {
    for (const operation of operations) {
      switch (operation.op) {
        case "set":
          after.set(checkKey(operation.op, operation.key), operation.value);
          break;
        case "merge": {
          const key = checkKey(operation.op, operation.key);
          after.set(key, checkMergeValue(key, operation.value));
          break;
        }
        case "append": {
          const key = checkKey(operation.op, operation.key);
          const existing = after.has(key) ? after.get(key) : getOwn(initial, key);
          if (existing !== undefined && existing !== null && !Array.isArray(existing)) return false;
          after.set(key, list);
          break;
        }
        case "delete":
          after.set(checkKey(operation.op, operation.key), undefined);
          break;
        case "log_event":
          checkEventType(operation.type);
          break;
        default:
          return false;
      }
    }
  } catch {
    return false;
  }
  return true;
}

function fold(deps: PlainObject, operations: Iterable<ContextOperation>, owned: Owned): PlainObject {
  for (const operation of operations) {
    switch (operation.op) {
      case "set":
        setOwn(deps, checkKey(operation.op, operation.key), operation.value);
        break;
      case "merge": {
        const key = checkKey(operation.op, operation.key);
        const value = checkMergeValue(key, operation.value);
        const existing = getOwn(deps, key);
        setOwn(deps, key, isPlainObject(existing) ? mergeInto(existing, value, owned) : value);
        break;
      }
      case "append": {
        const key = checkKey(operation.op, operation.key);
        const existing = getOwn(deps, key);
        if (existing === undefined || existing === null) {
          const list = [operation.item];
          owned.add(list);
          setOwn(deps, key, list);
        } else if (!Array.isArray(existing)) {
          throw new ContextUpdateError({
            operation: "append",
            key,
            problem: "append_target_not_list",
            detail: `the existing value is ${describe(existing)}, not a list`,
          });
        } else if (owned.has(existing)) {
          existing.push(operation.item);
        } else {
          // slice copies a plain array fastest; anything else is rebuilt as a plain array.
          const list = existing.constructor === Array ? existing.slice() : [...existing];
          list.push(operation.item);
          owned.add(list);
          setOwn(deps, key, list);
        }
        break;
      }
      case "delete":
        delete deps[checkKey(operation.op, operation.key)];
        break;
      case "log_event":
        checkEventType(operation.type);
        break;
      default:
        throw new ContextUpdateError({
          operation: String((operation as { op?: unknown }).op),
          key: (operation as { key?: unknown }).key,
          problem: "unknown_operation",
          detail: "unknown operation",
        });
    }
  }
  return deps;
}

export function checkKey(operation: string, key: unknown): string {
  if (typeof key !== "string" || key.length === 0) {
    throw new ContextUpdateError({
      operation,
      key,
      problem: "invalid_key",
      detail: "keys must be non-empty strings",
    });
  }
  return key;
}

export function checkMergeValue(key: string, value: unknown): PlainObject {
  if (!isPlainObject(value)) {
    throw new ContextUpdateError({
      operation: "merge",
      key,
      problem: "merge_value_not_object",
      detail: `merge takes a plain object, got ${describe(value)}`,
    });
  }
  return value;
}

export function checkEventType(type: unknown): string {
  if (typeof type !== "string" || type.length === 0) {
    throw new ContextUpdateError({
      operation: "log_event",
      key: type,
      problem: "invalid_event_type",
      detail: "event types must be non-empty strings",
    });
  }
  return type;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an instance of ${value.constructor?.name ?? "an object"}`;
  return `a ${typeof value}`;
}
