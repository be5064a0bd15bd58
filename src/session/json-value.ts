import { isPlainObject } from "../context/plain-object.js";

/**
 * Where `value` stops being JSON data (a function, bigint, symbol, undefined in a list, a
 * non-finite number, a class instance, a cycle), as a path like `$.items[2]`; undefined when it is
 * JSON all the way down.
 */
export function findNonJson(value: unknown, path = "$", seen = new Set<object>()): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : path;
    case "object": {
      if (value === null) return undefined;
      if (seen.has(value)) return `${path} (a cycle)`;
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) {
            if (item === undefined) return `${path}[${index}]`;
            const found = findNonJson(item, `${path}[${index}]`, seen);
            if (found) return found;
          }
          return undefined;
        }
        if (!isPlainObject(value)) return `${path} (an instance of ${value.constructor?.name ?? "a class"})`;
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (item === undefined) continue;
          const found = findNonJson(item, `${path}.${key}`, seen);
          if (found) return found;
        }
        return undefined;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return `${path} (a ${typeof value})`;
  }
}
