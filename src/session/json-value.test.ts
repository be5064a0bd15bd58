import { describe, expect, it } from "vitest";
import { findNonJson, MAX_JSON_DEPTH } from "./json-value.js";

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

describe("findNonJson", () => {
  it("accepts JSON data and names the first offending value in document order", () => {
    expect(findNonJson("text")).toBeUndefined();
    expect(findNonJson({ a: [1, "x", null, { b: true }], c: undefined })).toBeUndefined();
    expect(findNonJson({ items: [1, () => 2, 3n] })).toBe("$.items[1] (a function)");
    expect(findNonJson([1, undefined, Symbol("s")])).toBe("$[1]");
    expect(findNonJson({ when: new Date(0) })).toBe("$.when (an instance of Date)");
    expect(findNonJson({ n: Number.NaN })).toBe("$.n");
    expect(findNonJson(10n)).toBe("$ (a bigint)");
  });

  it("finds cycles but accepts a value shared by siblings", () => {
    const shared = { x: 1 };
    expect(findNonJson({ a: shared, b: shared })).toBeUndefined();
    const cycle: Record<string, unknown> = { list: [] };
    (cycle.list as unknown[]).push(cycle);
    expect(findNonJson(cycle)).toBe("$.list[0] (a cycle)");
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
