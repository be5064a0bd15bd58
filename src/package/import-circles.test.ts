import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCircles } from "../test-support/import-graph.js";

const source = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the import graph has no circles", () => {
  it("no module imports, directly or through others, a module that imports it (type imports included)", () => {
    expect(importCircles(source)).toEqual([]);
  });

  it("finds a circle when there is one (sanity check of the walk)", () => {
    const fixture = join(source, "test-support", "fixtures", "import-circle");
    expect(importCircles(fixture)).toEqual([
      ["a.ts", "b.ts"],
      ["c.ts", "d.ts", "e.ts"],
    ]);
  });
});
