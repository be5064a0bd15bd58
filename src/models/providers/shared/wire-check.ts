import { MalformedResponseError } from "../../../errors/provider-error.js";

/*
 * Structural checks for provider wire JSON: a handful of combinators instead of a schema library,
 * so importing the package does not pay for one. A check returns its value typed, or throws a
 * `WireIssue` naming where and what; `parseWire` turns that into a `MalformedResponseError`.
 * Objects are checked in place, not copied: keys a check does not name are left as they are.
 */

/** Checks a value: returns it typed, or throws a `WireIssue`. */
export type Check<T> = (value: unknown) => T;

/** A check that also lets the value be absent (`null` or `undefined`); its key is optional in an object. */
export type OptionalCheck<T> = Check<T | null | undefined> & { readonly optional: true };

/** The type a check produces. */
export type Infer<C> = C extends Check<infer T> ? T : never;

type Shape = Record<string, Check<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { readonly optional: true } ? K : never }[keyof S];
type Flatten<T> = { [K in keyof T]: T[K] };
type ObjectOf<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

/** Where a value failed a check (`path` from the root) and why. */
export class WireIssue extends Error {
  readonly path: (string | number)[] = [];

  /** `choices[0].message.content: expected string, received number` */
  describe(): string {
    const where = this.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("");
    return where === "" ? this.message : `${where.replace(/^\./, "")}: ${this.message}`;
  }
}

function received(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function mismatch(expected: string, value: unknown): WireIssue {
  return new WireIssue(`expected ${expected}, received ${received(value)}`);
}

/** Runs `check` on a member, prefixing the member's key to the path of any issue. */
function member<T>(check: Check<T>, value: unknown, key: string | number): T {
  try {
    return check(value);
  } catch (error) {
    if (error instanceof WireIssue) error.path.unshift(key);
    throw error;
  }
}

export const string: Check<string> = (value) => {
  if (typeof value !== "string") throw mismatch("string", value);
  return value;
};

/** A finite number (`1e999` parses to `Infinity`, which is not one). */
export const number: Check<number> = (value) => {
  if (typeof value !== "number" || !Number.isFinite(value)) throw mismatch("number", value);
  return value;
};

/** Any value, but the key must be there (`null` counts; a missing key does not). */
export const present: Check<unknown> = (value) => {
  if (value === undefined) throw mismatch("a value", value);
  return value;
};

export function nullish<T>(check: Check<T>): OptionalCheck<T> {
  const optional: Check<T | null | undefined> = (value) =>
    value === null || value === undefined ? value : check(value);
  return Object.assign(optional, { optional: true as const });
}

export function array<T>(item: Check<T>, options: { min?: number } = {}): Check<T[]> {
  const min = options.min ?? 0;
  return (value) => {
    if (!Array.isArray(value)) throw mismatch("array", value);
    if (value.length < min) throw new WireIssue(`expected an array of at least ${min} items, received ${value.length}`);
    for (let index = 0; index < value.length; index++) member(item, value[index], index);
    return value as T[];
  };
}

/** An object (not an array) whose named keys pass their checks; other keys are kept unchecked. */
export function object<S extends Shape>(shape: S): Check<ObjectOf<S>> {
  const entries = Object.entries(shape);
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw mismatch("object", value);
    for (const [key, check] of entries) member(check, (value as Record<string, unknown>)[key], key);
    return value as ObjectOf<S>;
  };
}

/** Parses JSON text (or takes parsed JSON) and checks it; anything else is a `MalformedResponseError`. */
export function parseWire<T>(provider: string, check: Check<T>, value: unknown, what: string): T {
  let data = value;
  if (typeof value === "string") {
    try {
      data = JSON.parse(value);
    } catch (cause) {
      throw new MalformedResponseError({ provider, message: `${what} is not JSON: ${value.slice(0, 200)}`, cause });
    }
  }
  return checkWire(provider, check, data, `unexpected ${what}`);
}

/** Checks parsed JSON; a mismatch is a `MalformedResponseError` whose message starts with `what`. */
export function checkWire<T>(provider: string, check: Check<T>, value: unknown, what: string): T {
  try {
    return check(value);
  } catch (error) {
    if (!(error instanceof WireIssue)) throw error;
    throw new MalformedResponseError({ provider, message: `${what}: ${error.describe().slice(0, 300)}` });
  }
}
