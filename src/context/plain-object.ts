export type PlainObject = Record<string, unknown>;

/** An object literal or an `Object.create(null)` map: the only values `merge` recurses into. */
export function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Reads an own property only, so keys like "constructor" or "__proto__" never reach the prototype. */
export function getOwn(object: PlainObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Writes an own data property; plain assignment to "__proto__" would replace the prototype instead. */
export function setOwn(object: PlainObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/** A shallow copy that keeps own "__proto__" keys as data (spread uses CreateDataProperty). */
export function copyObject(object: PlainObject): PlainObject {
  return Object.getPrototypeOf(object) === null ? Object.assign(Object.create(null), object) : { ...object };
}

/** Lists and objects a fold (or a run's earlier folds) created and no one else has seen. */
export interface Owned {
  has(value: object): boolean;
  add(value: object): unknown;
}
