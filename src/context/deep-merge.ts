import { copyObject, getOwn, isPlainObject, type Owned, type PlainObject, setOwn } from "./plain-object.js";

/**
 * Deep-merges `source` into `target`. Nested plain objects merge recursively; any other value on the
 * right wins. Objects in `owned` were created by the current fold and may be written in place;
 * every other object is copied once before its first write, so inputs are never mutated.
 */
export function mergeInto(target: PlainObject, source: PlainObject, owned: Owned): PlainObject {
  let result = target;
  if (!owned.has(result)) {
    result = copyObject(target);
    owned.add(result);
  }
  for (const key of Object.keys(source)) {
    const right = source[key];
    const left = getOwn(result, key);
    setOwn(result, key, isPlainObject(right) && isPlainObject(left) ? mergeInto(left, right, owned) : right);
  }
  return result;
}

/**
 * The pure deep merge `merge` operations use: returns a new object, changes neither argument.
 *
 * @example
 * deepMerge({ a: { x: 1 } }, { a: { y: 2 } }); // { a: { x: 1, y: 2 } }
 */
export function deepMerge(left: PlainObject, right: PlainObject): PlainObject {
  return mergeInto(left, right, new Set());
}
