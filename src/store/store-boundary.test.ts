import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const source = dirname(fileURLToPath(import.meta.url));
const root = join(source, "..");

/**
 * Every module reachable from `entry` through static imports (and dynamic ones unless `staticOnly`),
 * with the bare packages they import. The core may load the SQLite store lazily, with a dynamic
 * import, only when a session run is given no store; importing the package must never load it.
 */
function importGraph(entry: string, staticOnly = false): { modules: string[]; packages: Set<string> } {
  const pattern = staticOnly ? /(?:from|^import)\s*["']([^"']+)["']/gm : /(?:from|import)\s*\(?\s*["']([^"']+)["']/g;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] as string;
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else packages.add(specifier.startsWith("node:") ? specifier : (specifier.split("/")[0] as string));
    }
  };
  visit(entry);
  return { modules: [...seen].map((file) => relative(root, file)), packages };
}

describe("store entry points", () => {
  it("keeps drivers out of the core: src/store/index.ts and src/index.ts load neither better-sqlite3 nor pg", () => {
    for (const entry of [join(source, "index.ts"), join(root, "index.ts")]) {
      const { packages } = importGraph(entry, true);
      expect(packages.has("better-sqlite3")).toBe(false);
      expect(packages.has("pg")).toBe(false);
      expect(packages.has("vitest")).toBe(false);
    }
  });

  it("loads each driver only from its own entry point", () => {
    const sqlite = importGraph(join(root, "sqlite.ts"));
    expect(sqlite.packages.has("better-sqlite3")).toBe(true);
    expect(sqlite.packages.has("pg")).toBe(false);
    const postgres = importGraph(join(root, "postgres.ts"));
    expect(postgres.packages.has("pg")).toBe(true);
    expect(postgres.packages.has("better-sqlite3")).toBe(false);
  });
});
