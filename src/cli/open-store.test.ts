import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageError } from "./cli-support.js";
import { runCli, temporaryDirectory } from "./fixtures/cli-process.js";
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

describe("--store", () => {
  it("--store with an unknown scheme (mysql://x) is refused with a usage error and creates nothing", async () => {
    const cwd = temporaryDirectory("nous-scheme-cli-");
    for (const args of [
      ["sessions", "list", "--store", "mysql://x"],
      ["run", "hi", "--store", "mysql://x"],
    ]) {
      const result = await runCli(args, { cwd });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain('unknown store scheme "mysql://"');
    }
    expect(readdirSync(cwd)).toEqual([]);
  }, 60_000);
});
