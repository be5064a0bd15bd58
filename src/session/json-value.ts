import { isPlainObject } from "../context/plain-object.js";

/**
 * How deeply a recorded value may nest. `JSON.stringify` recurses, and V8 overflows its stack a few
 * thousand levels down; a value past this depth could be checked but never recorded.
 */
export const MAX_JSON_DEPTH = 1000;

/** A value on the walk's stack, with the way back to the root for its path. */
interface Visit {
  readonly value: unknown;
  readonly parent: Visit | undefined;
  readonly key: string | number | undefined;
  readonly depth: number;
}

/** Marks the end of an object's children: it leaves the current path (cycles are only on-path repeats). */
class Leave {
  constructor(readonly value: object) {}
}

/**
 * Where `value` stops being JSON data (a function, bigint, symbol, undefined in a list, a
 * non-finite number, a class instance, a cycle, nesting deeper than `MAX_JSON_DEPTH`), as a path
 * like `$.items[2]`; undefined when it is JSON all the way down. Iterative: any depth is checked
 * without growing the call stack.
 *
 * @example
 * findNonJson({ items: [1, () => 2] }); // "$.items[1] (a function)"
 */
export function findNonJson(value: unknown, path = "$"): string | undefined {
  if (typeof value !== "object" || value === null) return primitiveProblem(value, path);
  const onPath = new Set<object>();
  const stack: (Visit | Leave)[] = [{ value, parent: undefined, key: undefined, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit | Leave;
    if (visit instanceof Leave) {
      onPath.delete(visit.value);
      continue;
    }
    const item = visit.value;
    if (item === undefined) return pathOf(visit, path); // only list items are pushed when undefined
    if (typeof item !== "object" || item === null) {
      const problem = primitiveProblem(item, "");
      if (problem !== undefined) return pathOf(visit, path) + problem;
      continue;
    }
    if (onPath.has(item)) return `${pathOf(visit, path)} (a cycle)`;
    if (visit.depth >= MAX_JSON_DEPTH) return `${pathOf(visit, path)} (nested deeper than ${MAX_JSON_DEPTH} levels)`;
    const depth = visit.depth + 1;
    if (Array.isArray(item)) {
      onPath.add(item);
      stack.push(new Leave(item));
      // Children in reverse, so the first offending value in document order is the one reported.
      for (let index = item.length - 1; index >= 0; index--) {
        const child: unknown = item[index];
        if (child === undefined || typeof child === "object" || primitiveProblem(child, "") !== undefined) {
          stack.push({ value: child, parent: visit, key: index, depth });
        }
      }
      continue;
    }
    if (!isPlainObject(item)) return `${pathOf(visit, path)} (an instance of ${item.constructor?.name ?? "a class"})`;
    onPath.add(item);
    stack.push(new Leave(item));
    const keys = Object.keys(item);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      const child = item[key];
      if (child === undefined) continue; // JSON drops undefined properties
      if (typeof child === "object" || primitiveProblem(child, "") !== undefined) {
        stack.push({ value: child, parent: visit, key, depth });
      }
    }
  }
  return undefined;
}

function primitiveProblem(value: unknown, path: string): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : path;
    case "object":
      return undefined; // null
    default:
      return `${path} (a ${typeof value})`;
  }
}

function pathOf(visit: Visit, root: string): string {
  const parts: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) {
    parts.push(typeof at.key === "number" ? `[${at.key}]` : `.${at.key}`);
  }
  parts.reverse();
  // A path a thousand levels deep is no help to read: its start and end are.
  if (parts.length > 24)
    return `${root}${parts.slice(0, 8).join("")}…(${parts.length - 12} more)…${parts.slice(-4).join("")}`;
  return root + parts.join("");
}
