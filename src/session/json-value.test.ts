import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NonJsonValueError } from "../errors/non-json-value-error.js";
import { findJsonLoss, findNonJson, MAX_JSON_DEPTH, toJsonValue } from "./json-value.js";

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

function refusal(value: unknown): NonJsonValueError {
  try {
    toJsonValue(value);
  } catch (error) {
    if (error instanceof NonJsonValueError) return error;
    throw error;
  }
  throw new Error("not refused");
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe("findNonJson", () => {
  it("accepts JSON data and names the first offending value in document order", () => {
    expect(findNonJson("text")).toBeUndefined();
    expect(findNonJson({ a: [1, "x", null, { b: true }], c: undefined })).toBeUndefined();
    expect(findNonJson({ items: [1, () => 2, 3n] })).toBe("$.items[1] (a function (JSON would make it null))");
    expect(findNonJson([1, undefined, Symbol("s")])).toBe("$[1] (undefined (JSON would make it null))");
    expect(findNonJson({ when: new Date(0) })).toMatch(/^\$\.when \(an instance of Date/);
    expect(findNonJson({ n: Number.NaN })).toBe("$.n (NaN (JSON would make it null))");
    expect(findNonJson(10n)).toBe("$ (a bigint (JSON has no bigints))");
    expect(findNonJson({ "odd key": [() => 1] })).toMatch(/^\$\["odd key"\]\[0\]/);
  });

  it("finds cycles but accepts a value shared by siblings", () => {
    const shared = { x: 1 };
    expect(findNonJson({ a: shared, b: shared })).toBeUndefined();
    const cycle: Record<string, unknown> = { list: [] };
    (cycle.list as unknown[]).push(cycle);
    expect(findNonJson(cycle)).toBe("$.list[0] (a cycle (the value contains itself))");
  });

  it("checks any depth without growing the stack, refusing what could not be recorded", () => {
    expect(findNonJson(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(findNonJson(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper than 1000 levels/);
    // Deep enough to overflow a recursive walk (and JSON.stringify): a typed answer, not a RangeError.
    expect(findNonJson(nested(20_000))).toMatch(/nested deeper than 1000 levels\)$/);
    // A deep path is shown by its start and end.
    expect(findNonJson(nested(20_000))?.length).toBeLessThan(200);
    expect(findNonJson(nested(1_000_000))).toMatch(/nested deeper/);
    expect(() => JSON.stringify(nested(MAX_JSON_DEPTH + 2))).not.toThrow();
  });
});

describe("every value is JSON-normalized before it is recorded, or refused with a typed error naming its path", () => {
  it("gives what JSON.parse(JSON.stringify(value)) gives: toJSON honoured, undefined, functions and symbols dropped or null, NaN null", () => {
    const value = {
      when: new Date(0),
      gone: undefined,
      fn: () => 1,
      sym: Symbol("s"),
      ratio: Number.NaN,
      big: Number.POSITIVE_INFINITY,
      list: [undefined, () => 1, Symbol("s"), Number.NaN, new Date(1000), 2],
      boxed: [new Number(3), new String("s"), new Boolean(false)],
      custom: { toJSON: (key: string) => `key=${key}` },
      deep: { inner: { at: new Date(2000) } },
      dropped: { toJSON: () => undefined },
    };
    const normalized = toJsonValue(value);
    expect(normalized).toEqual(JSON.parse(JSON.stringify(value)));
    expect(JSON.stringify(normalized)).toBe(JSON.stringify(value)); // key order kept
    expect(toJsonValue(undefined)).toBeNull();
    expect(toJsonValue(() => 1)).toBeNull();
    expect(toJsonValue(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
    expect(toJsonValue(Number.NaN)).toBeNull();
  });

  it("equals JSON.parse(JSON.stringify(value)) for any value JSON can stand for (property)", () => {
    const values = fc.anything({
      withDate: true,
      withBoxedValues: true,
      withNullPrototype: true,
      withSparseArray: true,
      withObjectString: true,
      key: fc.oneof(fc.string(), fc.constantFrom("__proto__", "toJSON", "constructor")),
    });
    fc.assert(
      fc.property(values, (value) => {
        const normalized = toJsonValue(value);
        const reference: unknown = JSON.parse(JSON.stringify(value) ?? "null");
        expect(normalized).toEqual(reference); // a null-prototype object stays one: JSON data all the same
        expect(JSON.stringify(normalized)).toBe(JSON.stringify(reference));
        expect(findNonJson(normalized)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
    fc.assert(
      // fast-check's JSON values may hold -0, which JSON text cannot: parse its text for real JSON data.
      fc.property(
        fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown),
        (value) => {
          expect(toJsonValue(value)).toBe(value);
        },
      ),
    );
    expect(Object.is(toJsonValue(-0), 0)).toBe(true);
    expect(Object.is((toJsonValue({ n: -0 }) as { n: number }).n, 0)).toBe(true);
  });

  it("returns JSON data itself, not a copy, and never changes the value it was given", () => {
    const data = { a: [1, { b: "x" }], c: null };
    expect(toJsonValue(data)).toBe(data);
    const withDate = { at: new Date(0), list: [1] };
    const normalized = toJsonValue(withDate) as { at: unknown; list: unknown };
    expect(withDate.at).toBeInstanceOf(Date);
    expect(normalized.list).toEqual([1]);
  });

  it("keeps __proto__ as an own data key", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"at":"x"}') as Record<string, unknown>;
    value.when = new Date(0);
    const normalized = toJsonValue(value) as Record<string, unknown>;
    expect(Object.hasOwn(normalized, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(normalized)).toBe(Object.prototype);
  });

  it("refuses a bigint, a cycle, nesting past MAX_JSON_DEPTH, a Map, a Set, an Error, a typed array and a class instance", () => {
    const cycle: Record<string, unknown> = { name: "loop" };
    cycle.self = { again: cycle };
    const cases: [unknown, string, RegExp][] = [
      [{ items: [1, 2, 3, { when: 10n }] }, "$.items[3].when", /a bigint/],
      [{ wrapper: cycle }, "$.wrapper.self.again", /a cycle/],
      [{ index: new Map([["a", 1]]) }, "$.index", /a Map \(JSON would make it \{\}\)/],
      [[new Set([1])], "$[0]", /a Set/],
      [{ error: new Error("x") }, "$.error", /an Error/],
      [{ bytes: new Uint8Array(2) }, "$.bytes", /a typed array \(Uint8Array/],
      [{ point: new Point(1, 2) }, "$.point", /an instance of Point \(JSON would keep only its own fields\)/],
      [{ pending: Promise.resolve(1) }, "$.pending", /a Promise/],
      [{ via: { toJSON: () => ({ inner: 1n }) } }, "$.via.inner", /a bigint/],
      [nested(MAX_JSON_DEPTH + 1, new Date(0)), expect.any(String) as unknown as string, /nested deeper than 1000/],
      [
        {
          toJSON: () => {
            throw new Error("nope");
          },
        },
        "$",
        /toJSON\(\) threw \(nope\)/,
      ],
    ];
    for (const [value, path, reason] of cases) {
      const error = refusal(value);
      expect(error).toMatchObject({ code: "non_json_value", fault: "tool", path });
      expect(error.reason).toMatch(reason);
      expect(error.message).toContain(`not JSON data at ${error.path}`);
    }
    // a million levels: refused, not a stack overflow
    expect(refusal(nested(1_000_000, Number.NaN)).reason).toMatch(/nested deeper/);
  });
});

describe("findJsonLoss (what a store refuses)", () => {
  it("allows toJSON and undefined properties, refuses what JSON would drop, null or empty", () => {
    expect(findJsonLoss({ when: new Date(0), gone: undefined, n: new Number(1) }, "data")).toBeUndefined();
    expect(findJsonLoss({ n: Number.NaN }, "data")).toEqual({
      path: "data.n",
      reason: "NaN (JSON would make it null)",
    });
    expect(findJsonLoss({ callback: () => 1 }, "data")).toEqual({
      path: "data.callback",
      reason: "a function (JSON would drop it)",
    });
    expect(findJsonLoss([1, undefined], "data")?.path).toBe("data[1]");
    expect(findJsonLoss({ "odd key": { set: new Set() } }, "data")?.path).toBe('data["odd key"].set');
    expect(findJsonLoss(undefined, "data")?.path).toBe("data");
  });
});
