import { describe, expect, it } from "vitest";
import { seededRandom } from "../models/providers/test-support/suite-support.js";
import { PartialJsonParser } from "./partial-json.js";

const ALPHABET = ["a", "Z", " ", '"', "\\", "/", "\n", "\t", "é", "😀", "\u0001", "\u2028", "}", "]", ",", ":"];

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 4 : 6));
  switch (pick) {
    case 0: {
      const length = Math.floor(next() * 8);
      let text = "";
      for (let index = 0; index < length; index += 1) text += ALPHABET[Math.floor(next() * ALPHABET.length)];
      return text;
    }
    case 1: {
      const kinds = [0, -7, 123456, 3.25, -0.5e-7, 1e21, Math.floor(next() * 1e6) / 100];
      return kinds[Math.floor(next() * kinds.length)];
    }
    case 2:
      return [true, false][Math.floor(next() * 2)];
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const size = Math.floor(next() * 5);
      for (let index = 0; index < size; index += 1)
        object[`k${index}${ALPHABET[index]}`] = randomValue(next, depth + 1);
      return object;
    }
  }
}

/** Splits text at random points (some pieces empty, some a single character). */
function randomSplit(text: string, next: () => number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    const size = Math.floor(next() * 6);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** Whether `partial` could become `final` as more text arrives. */
function isPrefix(partial: unknown, final: unknown): boolean {
  if (typeof partial === "string") return typeof final === "string" && final.startsWith(partial);
  if (Array.isArray(partial)) {
    if (!Array.isArray(final) || partial.length > final.length) return false;
    return partial.every((item, index) => isPrefix(item, final[index]));
  }
  if (typeof partial === "object" && partial !== null) {
    if (typeof final !== "object" || final === null || Array.isArray(final)) return false;
    return Object.entries(partial).every(
      ([key, value]) => Object.hasOwn(final, key) && isPrefix(value, (final as Record<string, unknown>)[key]),
    );
  }
  return Object.is(partial, final);
}

function parseInPieces(pieces: readonly string[]): { partials: unknown[]; parser: PartialJsonParser } {
  const parser = new PartialJsonParser();
  const partials: unknown[] = [];
  let seen = parser.version;
  for (const piece of pieces) {
    parser.push(piece);
    if (parser.version !== seen) {
      seen = parser.version;
      partials.push(parser.snapshot());
    }
  }
  return { partials, parser };
}

describe("PartialJsonParser", () => {
  it("for random values split at random points, every partial is a prefix and the end equals JSON.parse", () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const next = seededRandom(seed);
      const value = randomValue(next, 0);
      const text = JSON.stringify(value, null, next() < 0.3 ? 2 : undefined);
      const final = JSON.parse(text) as unknown;
      const { partials, parser } = parseInPieces(randomSplit(text, next));
      for (const partial of partials) expect(isPrefix(partial, final), `seed ${seed}: ${text}`).toBe(true);
      // A new version is a visible change: no partial repeats the one before it.
      for (let index = 1; index < partials.length; index += 1) {
        expect(JSON.stringify(partials[index]), `seed ${seed}`).not.toBe(JSON.stringify(partials[index - 1]));
      }
      expect(parser.end(), `seed ${seed}`).toBe(true);
      expect(parser.snapshot(), `seed ${seed}`).toEqual(final);
    }
  });

  it("snapshots already given never change afterwards", () => {
    const parser = new PartialJsonParser();
    parser.push('{"list":[{"a":"x');
    const early = parser.snapshot();
    const copy = structuredClone(early);
    parser.push('yz"},2],"b":true}');
    expect(parser.end()).toBe(true);
    expect(early).toEqual(copy);
    expect(parser.snapshot()).toEqual({ list: [{ a: "xyz" }, 2], b: true });
  });

  it("never shows a number before it ends", () => {
    const parser = new PartialJsonParser();
    parser.push('{"n":12');
    expect(parser.snapshot()).toEqual({});
    parser.push("3");
    expect(parser.snapshot()).toEqual({});
    parser.push("}");
    expect(parser.snapshot()).toEqual({ n: 123 });
    const root = new PartialJsonParser();
    root.push("-4");
    root.push("2");
    expect(root.snapshot()).toBeUndefined();
    expect(root.end()).toBe(true);
    expect(root.snapshot()).toBe(-42);
  });

  it("reads escapes and \\u sequences split anywhere, surrogate pairs included", () => {
    const text = '["a\\"b\\\\c\\n", "\\ud83d\\ude00\\u00e9"]';
    for (let cut = 1; cut < text.length; cut += 1) {
      const parser = new PartialJsonParser();
      parser.push(text.slice(0, cut));
      const partial = parser.snapshot();
      parser.push(text.slice(cut));
      expect(isPrefix(partial, ['a"b\\c\n', "😀é"]), `cut ${cut}`).toBe(true);
      expect(parser.snapshot()).toEqual(['a"b\\c\n', "😀é"]);
    }
  });

  it("shows true, false and null only when complete", () => {
    const parser = new PartialJsonParser();
    parser.push("[tr");
    expect(parser.snapshot()).toEqual([]);
    parser.push("ue,fals");
    expect(parser.snapshot()).toEqual([true]);
    parser.push("e,n");
    parser.push("ull]");
    expect(parser.snapshot()).toEqual([true, false, null]);
  });

  it("keeps __proto__ keys as own properties, as JSON.parse does", () => {
    const parser = new PartialJsonParser();
    parser.push('{"__proto__":{"x":1}}');
    expect(parser.snapshot()).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
    expect(Object.getPrototypeOf(parser.snapshot())).toBe(Object.prototype);
  });

  it("fails on text that cannot begin valid JSON, and ignores text after the root value", () => {
    for (const bad of ["{a", "[1,]x", "tru3", '"\\x"', "01x", '{"a" 1}', "[1 2]"]) {
      const parser = new PartialJsonParser();
      parser.push(bad);
      expect(parser.end(), bad).toBe(false);
    }
    const parser = new PartialJsonParser();
    parser.push('{"a":1} and then some prose');
    expect(parser.end()).toBe(true);
    expect(parser.snapshot()).toEqual({ a: 1 });
  });

  it("reports each complete element of the array at a path, once", () => {
    const seen: [number, unknown][] = [];
    const parser = new PartialJsonParser({
      elementsAt: ["response"],
      onElement: (index, value) => seen.push([index, value]),
    });
    const text = '{"other":[9],"response":[{"id":1,"tags":["x"]},7,"s",[1]]}';
    for (const char of text) parser.push(char);
    expect(seen).toEqual([
      [0, { id: 1, tags: ["x"] }],
      [1, 7],
      [2, "s"],
      [3, [1]],
    ]);
  });

  it("does linear work: four times the text costs about four times as much, even one character at a time", () => {
    const work = (count: number) => {
      const text = JSON.stringify({ items: Array.from({ length: count }, (_, index) => ({ id: index, name: "n" })) });
      const { parser } = parseInPieces(Array.from(text));
      return parser.work;
    };
    // Snapshots copy the open containers, so one per character is quadratic without a budget;
    // the throttle lives in the output stream (see structured-output-stream.test.ts). Here: no snapshot at all.
    const small = new PartialJsonParser();
    const large = new PartialJsonParser();
    const text = (count: number) => JSON.stringify(Array.from({ length: count }, (_, index) => ({ id: index })));
    for (const char of text(500)) small.push(char);
    for (const char of text(2000)) large.push(char);
    expect(large.work / small.work).toBeLessThan(4.5);
    // With a snapshot after every change, the work grows faster than the text (the budget is why).
    expect(work(400) / work(100)).toBeGreaterThan(8);
  });
});
