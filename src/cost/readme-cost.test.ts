/**
 * The README's Cost example (the ts block that starts with `// cost.ts`) runs as a user's script
 * against the built package and prints what its comments say.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TSX_LOADER, temporaryDirectory } from "../cli/fixtures/cli-process.js";
import { repoRoot } from "../test-support/packed-project.js";

function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("```ts\n// cost.ts\n");
  expect(start, "the README shows cost.ts").toBeGreaterThan(-1);
  return readme.slice(start + "```ts\n".length, readme.indexOf("```", start + 6));
}

describe("the README's Cost example", () => {
  it("prints a gpt-4o response's cost, then the run's and the session's", async () => {
    const cwd = temporaryDirectory("nous-readme-cost-");
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "cost-user", private: true, type: "module" }));
    writeFileSync(join(cwd, "cost.ts"), readmeExample());
    mkdirSync(join(cwd, "node_modules"));
    symlinkSync(repoRoot, join(cwd, "node_modules", "nous"));
    const stdout = await new Promise<string>((done, fail) =>
      execFile(process.execPath, ["--import", TSX_LOADER, "cost.ts"], { cwd, timeout: 60_000 }, (error, out, err) =>
        error ? fail(new Error(`${error.message}\n${err}`)) : done(out),
      ),
    );
    expect(stdout.trim().split("\n")).toEqual([
      "{",
      "  source: 'genai-prices@0.1.8',",
      "  priceModel: 'openai:gpt-4o',",
      "  usd: 0.007,",
      "  inputUsd: 0.0015,",
      "  cacheReadUsd: 0.0005,",
      "  outputUsd: 0.005",
      "}",
      "{ usd: 0.0024, partial: false }",
      "{ usd: 0.0024, partial: false }",
    ]);
  }, 60_000);
});
