import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify, stripVTControlCharacters } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { packTarball, repoRoot } from "../test-support/packed-project.js";

const run = promisify(execFile);
const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);

/** The resolution modes `attw --profile esm-only` ignores: an ESM-only package has no CommonJS or node10 build. */
const ignoredByEsmOnly = new Set(["node10", "node16-cjs"]);

describe("the packed tarball", () => {
  let tarball: string;
  let files: string[];
  beforeAll(async () => {
    tarball = packTarball();
    const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 16 * 1024 * 1024 });
    files = stdout
      .split("\n")
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ""));
  }, 120_000);

  it("is publint clean: no error or warning, and no suggestion but the browser field's", async () => {
    const { stdout } = await run(bin("publint"), ["run", tarball, "--level", "suggestion", "--strict"]);
    expect(stdout).not.toMatch(/Errors:|Warnings:/);
    // The package's `browser` field swaps the default SQLite store for a stub in browser bundles
    // (bundlers read it for files deep inside a package); publint suggests `imports` conditions instead.
    const suggestions = stdout.split("\n").filter((line) => /^\d+\. /.test(stripVTControlCharacters(line)));
    expect(suggestions).toHaveLength(stdout.includes("All good!") ? 0 : 1);
    for (const line of suggestions) expect(line).toContain("pkg.browser");
  }, 120_000);

  it("is clean for @arethetypeswrong/cli's esm-only profile: every entry's types resolve for ESM and bundlers", async () => {
    // attw exits non-zero on a problem the profile does not ignore; the JSON says which.
    const result = await run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "json"], {
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? "", code: error.code }));
    const report = JSON.parse(result.stdout) as {
      analysis: {
        entrypoints: Record<string, unknown>;
        problems: { kind: string; entrypoint: string; resolutionKind?: string }[];
      };
    };
    const problems = report.analysis.problems.filter(
      (problem) => problem.resolutionKind === undefined || !ignoredByEsmOnly.has(problem.resolutionKind),
    );
    expect(problems).toEqual([]);
    expect("code" in result ? result.code : 0).toBe(0);
    expect(Object.keys(report.analysis.entrypoints)).toEqual(
      expect.arrayContaining([
        ".",
        "./testing",
        "./sqlite",
        "./postgres",
        "./mcp",
        "./inspector",
        "./code-mode",
        "./conformance",
        "./telemetry",
      ]),
    );
  }, 180_000);

  it("ships no tests, test helpers or fixtures, and has a LICENSE", () => {
    const testish = files.filter((path) =>
      /(^|\/)(test-support|fixtures)\/|\.test(-d)?\.|test-servers|test-fixtures/.test(path),
    );
    expect(testish).toEqual([]);
    expect(files).toContain("LICENSE");
    expect(files).toContain("dist/index.js");
  });

  it("ships source maps that carry their sources (the maps point at no unshipped src/)", async () => {
    // Each bundled file (entries, the CLI, the shared chunks in dist/chunks/) has its map.
    const scripts = files.filter((path) => path.endsWith(".js"));
    expect(scripts.filter((path) => !files.includes(`${path}.map`))).toEqual([]);
    const folder = mkdtempSync(join(tmpdir(), "nous-maps-"));
    await run("tar", ["-xzf", tarball, "-C", folder]);
    const sources = new Set<string>();
    for (const path of files.filter((name) => name.endsWith(".js.map"))) {
      const map = JSON.parse(readFileSync(join(folder, "package", path), "utf8")) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      expect(map.sourcesContent?.length ?? 0, path).toBe(map.sources.length);
      expect(map.sourcesContent?.every((text) => typeof text === "string" && text.length > 0) ?? true, path).toBe(true);
      for (const source of map.sources) sources.add(source.replace(/^(\.\.\/)+/, ""));
    }
    expect(sources).toContain("src/agent/agent.ts");
    expect(sources).toContain("src/store/sqlite-store.ts");
  });
});
