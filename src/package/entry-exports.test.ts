import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as nous from "../index.js";

const source = dirname(fileURLToPath(import.meta.url));

/** Error classes a caller never sees: the CLI's own, and the stream channel's internal stop signal. */
const internal = new Map([
  ["ArithmeticError", "the CLI's built-in calculator tool"],
  ["FileListingError", "the CLI's file listing"],
  ["UsageError", "the CLI's argument errors, printed as usage"],
  ["ConsumerStoppedError", "unwinds a stream whose reader stopped; never reaches a caller"],
]);
/** Names the README uses for something that is not a host class. */
const notClasses = new Map([
  ["ToolError", "the Error a code-mode program sees inside the sandbox"],
  ...["SyntaxError", "RangeError", "TypeError", "DOMException"].map((name) => [name, "JavaScript's own"] as const),
]);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === "test-support" ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !/\.test(-d)?\.ts$/.test(name) ? [path] : [];
  });
}

describe("error classes a caller must catch are exported from the main entry", () => {
  const exported = nous as Record<string, unknown>;

  it("every error class the README names", () => {
    const readme = readFileSync(join(source, "..", "README.md"), "utf8");
    const named = new Set(readme.match(/\b[A-Z][A-Za-z]+Error\b/g) ?? []);
    const missing = [...named].filter((name) => !notClasses.has(name) && typeof exported[name] !== "function");
    expect(missing).toEqual([]);
  });

  it("every error class the library defines, except the internal ones", () => {
    const defined = new Set<string>();
    for (const file of sourceFiles(source)) {
      for (const match of readFileSync(file, "utf8").matchAll(/export (?:abstract )?class (\w+Error) extends/g)) {
        if (match[1] !== undefined) defined.add(match[1]);
      }
    }
    expect(defined.size).toBeGreaterThan(30);
    const missing = [...defined].filter((name) => !internal.has(name) && typeof exported[name] !== "function");
    expect(missing).toEqual([]);
    for (const name of defined) {
      if (internal.has(name) || name === "NousError") continue;
      expect(Object.prototype.isPrototypeOf.call(nous.NousError, exported[name] as object), name).toBe(true);
    }
  });
});
