import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "../test-support/import-graph.js";

const source = dirname(fileURLToPath(import.meta.url));
const root = join(source, "..");

describe("store entry points", () => {
  it("keeps drivers out of the core: src/store/index.ts and src/index.ts load neither better-sqlite3 nor pg", () => {
    for (const entry of [join(source, "index.ts"), join(root, "index.ts")]) {
      const { modules, packages } = importGraph(entry, root);
      expect(packages.has("better-sqlite3")).toBe(false);
      expect(modules.has("store/sqlite-driver-load.ts")).toBe(false);
      expect(packages.has("pg")).toBe(false);
      expect(packages.has("vitest")).toBe(false);
    }
  });

  it("loads each driver only from its own entry point; the SQLite driver only when a store opens", () => {
    const sqlite = importGraph(join(root, "sqlite.ts"), root, { dynamic: true });
    // No import names a driver: sqlite-driver-load.ts requires the runtime's one on the first open.
    expect(sqlite.packages.has("better-sqlite3")).toBe(false);
    expect(sqlite.modules.has("store/sqlite-driver-load.ts")).toBe(true);
    expect(sqlite.packages.has("pg")).toBe(false);
    const postgres = importGraph(join(root, "postgres.ts"), root, { dynamic: true });
    expect(postgres.packages.has("pg")).toBe(true);
    expect(postgres.packages.has("better-sqlite3")).toBe(false);
  });
});
