import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageError } from "./cli-support.js";
import { temporaryDirectory } from "./fixtures/cli-process.js";
import { openStore } from "./open-store.js";

describe("openStore", () => {
  it("refuses a store URL with an unknown scheme and creates nothing", async () => {
    const directory = temporaryDirectory("nous-scheme-");
    const previous = process.cwd();
    process.chdir(directory);
    try {
      for (const location of ["mysql://x", "sqlite3://db", "HTTP://host/path", "file://x"]) {
        const refusal = await openStore(location).catch((error: unknown) => error);
        expect(refusal, location).toBeInstanceOf(UsageError);
        expect((refusal as Error).message).toMatch(/unknown store scheme/);
      }
      expect(readdirSync(directory)).toEqual([]);
      expect(existsSync("mysql:")).toBe(false);
    } finally {
      process.chdir(previous);
    }
  });
});
