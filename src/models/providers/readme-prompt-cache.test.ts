/**
 * The README's prompt caching example (the ts block that starts with `// caching.ts`) runs as a
 * user's script against the built package and prints what its comments say.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TSX_LOADER, temporaryDirectory } from "../../cli/fixtures/cli-process.js";
import { repoRoot } from "../../test-support/packed-project.js";

function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("```ts\n// caching.ts\n");
  expect(start, "the README shows caching.ts").toBeGreaterThan(-1);
  return readme.slice(start + "```ts\n".length, readme.indexOf("```", start + 6));
}

/** The example's comments that show its output (`// request …`, `// { … }`), in order. */
function printedInComments(example: string): string[] {
  const lines = example.split("\n");
  const at = lines.findIndex((line) => line.startsWith("const result = await agent.run("));
  return lines
    .slice(at + 1)
    .filter((line) => line.startsWith("// request ") || line.startsWith("// { "))
    .map((line) => line.slice(3));
}

describe("the README's prompt caching example", () => {
  it("prints the Anthropic breakpoints of both requests, then the cached tokens and the cost", async () => {
    const example = readmeExample();
    const cwd = temporaryDirectory("nous-readme-caching-");
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "caching-user", private: true, type: "module" }));
    writeFileSync(join(cwd, "caching.ts"), example);
    mkdirSync(join(cwd, "node_modules"));
    symlinkSync(repoRoot, join(cwd, "node_modules", "nous"));
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(cwd, "node_modules", "zod"));
    const stdout = await new Promise<string>((done, fail) =>
      execFile(process.execPath, ["--import", TSX_LOADER, "caching.ts"], { cwd, timeout: 60_000 }, (error, out, err) =>
        error ? fail(new Error(`${error.message}\n${err}`)) : done(out),
      ),
    );
    const expected = printedInComments(example);
    expect(expected).toHaveLength(3);
    expect(stdout.trim().split("\n")).toEqual(expected);
  }, 60_000);
});
