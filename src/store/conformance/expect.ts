/**
 * The conformance suite's own small `expect`, so that the suite runs under any test runner (or none):
 * the matchers the cases use, with vitest's meaning. A failed check throws `ConformanceCheckError`.
 */
import { ConformanceCheckError } from "../../errors/conformance-check-error.js";

type Constructor = abstract new (...args: never[]) => unknown;

export interface Matchers {
  toBe(expected: unknown): void;
  /** Deep equality; properties holding `undefined` count as absent (as vitest's toEqual). */
  toEqual(expected: unknown): void;
  /** Every property of `expected` (deeply) is in the value; arrays match element by element. */
  toMatchObject(expected: unknown): void;
  toBeInstanceOf(expected: Constructor): void;
  toBeGreaterThan(expected: number): void;
  toBeLessThan(expected: number): void;
  toBeUndefined(): void;
  toHaveLength(expected: number): void;
  toMatch(expected: RegExp | string): void;
  toHaveProperty(key: string): void;
}

export interface Expectation extends Matchers {
  readonly not: Pick<Matchers, "toHaveProperty" | "toBe" | "toEqual">;
  /** The value is a promise that must reject; the matcher checks the rejection. */
  readonly rejects: {
    toBeInstanceOf(expected: Constructor): Promise<void>;
    toMatchObject(expected: unknown): Promise<void>;
    toThrow(expected?: RegExp | string): Promise<void>;
  };
}

const show = (value: unknown): string => {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Deep equality where a property holding `undefined` equals a missing one. */
export function equals(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (!isObject(left) || !isObject(right)) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => equals(item, right[index]));
  }
  if (left instanceof Date || right instanceof Date) {
    return left instanceof Date && right instanceof Date && left.getTime() === right.getTime();
  }
  const keys = (value: Record<string, unknown>) => Object.keys(value).filter((key) => value[key] !== undefined);
  const leftKeys = keys(left);
  const rightKeys = keys(right);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every((key) => Object.hasOwn(right, key) && equals(left[key], right[key]))
  );
}

/** `actual` holds every property of `expected`, deeply. */
export function matchesObject(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matchesObject(actual[index], item))
    );
  }
  if (isObject(expected) && !(expected instanceof Date)) {
    if (!isObject(actual)) return false;
    return Object.keys(expected).every((key) => key in actual && matchesObject(actual[key], expected[key]));
  }
  return equals(actual, expected);
}

/** `expect(value, label?)`: the label names the case inside a loop. */
export function expect(actual: unknown, label?: string): Expectation {
  const fail = (text: string): never => {
    throw new ConformanceCheckError({ message: label === undefined ? text : `${label}: ${text}` });
  };
  const check = (ok: boolean, text: () => string) => {
    if (!ok) fail(text());
  };
  const hasProperty = (key: string) => isObject(actual) && key in actual;
  const rejection = async (): Promise<unknown> => {
    try {
      await actual;
    } catch (error) {
      return error;
    }
    return fail("expected the promise to reject, but it resolved");
  };
  const textMatches = (text: string, expected: RegExp | string) =>
    typeof expected === "string" ? text.includes(expected) : expected.test(text);
  return {
    toBe: (expected) => check(Object.is(actual, expected), () => `expected ${show(actual)} to be ${show(expected)}`),
    toEqual: (expected) => check(equals(actual, expected), () => `expected ${show(actual)} to equal ${show(expected)}`),
    toMatchObject: (expected) =>
      check(matchesObject(actual, expected), () => `expected ${show(actual)} to match ${show(expected)}`),
    toBeInstanceOf: (expected) =>
      check(actual instanceof expected, () => `expected ${show(actual)} to be an instance of ${expected.name}`),
    toBeGreaterThan: (expected) =>
      check(typeof actual === "number" && actual > expected, () => `expected ${show(actual)} to be > ${expected}`),
    toBeLessThan: (expected) =>
      check(typeof actual === "number" && actual < expected, () => `expected ${show(actual)} to be < ${expected}`),
    toBeUndefined: () => check(actual === undefined, () => `expected ${show(actual)} to be undefined`),
    toHaveLength: (expected) =>
      check(
        (typeof actual === "string" || isObject(actual)) && (actual as { length?: unknown }).length === expected,
        () => `expected ${show(actual)} to have length ${expected}`,
      ),
    toMatch: (expected) =>
      check(
        typeof actual === "string" && textMatches(actual, expected),
        () => `expected ${show(actual)} to match ${String(expected)}`,
      ),
    toHaveProperty: (key) => check(hasProperty(key), () => `expected ${show(actual)} to have property "${key}"`),
    not: {
      toHaveProperty: (key) => check(!hasProperty(key), () => `expected ${show(actual)} not to have property "${key}"`),
      toBe: (expected) =>
        check(!Object.is(actual, expected), () => `expected ${show(actual)} not to be ${show(expected)}`),
      toEqual: (expected) =>
        check(!equals(actual, expected), () => `expected ${show(actual)} not to equal ${show(expected)}`),
    },
    rejects: {
      toBeInstanceOf: async (expected) => {
        const error = await rejection();
        check(error instanceof expected, () => `expected a rejection with ${expected.name}, got ${show(error)}`);
      },
      toMatchObject: async (expected) => {
        const error = await rejection();
        check(
          matchesObject(error, expected),
          () => `expected a rejection matching ${show(expected)}, got ${show(error)}`,
        );
      },
      toThrow: async (expected) => {
        const error = await rejection();
        const message = error instanceof Error ? error.message : String(error);
        check(
          expected === undefined || textMatches(message, expected),
          () => `expected a rejection matching ${String(expected)}, got ${show(error)}`,
        );
      },
    },
  };
}
