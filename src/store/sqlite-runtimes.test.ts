import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SqliteDriverName } from "./sqlite-driver.js";
import { RUNTIMES, runtimeBinary } from "./test-support/runtimes.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const suites = [
  "src/store/sqlite-store.test.ts",
  "src/store/sqlite-integrity.test.ts",
  "src/store/sqlite-driver.test.ts",
];

interface VitestReport {
  numFailedTests: number;
  numPassedTests: number;
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

/** Runs the SQLite suites with `runtime` on `driver` only; resolves with vitest's JSON report. */
function runSuites(
  runtime: string,
  driver: SqliteDriverName,
): Promise<{ code: number | null; report: VitestReport; output: string }> {
  const folder = mkdtempSync(join(tmpdir(), "nous-runtime-"));
  const outputFile = join(folder, "report.json");
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  return new Promise((resolve, reject) => {
    const child = spawn(
      runtime,
      [
        join(repoRoot, "node_modules/vitest/vitest.mjs"),
        "run",
        ...suites,
        "--maxWorkers=1",
        "--reporter=json",
        `--outputFile=${outputFile}`,
      ],
      { cwd: repoRoot, env: { ...env, NOUS_SQLITE_DRIVERS: driver }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        resolve({ code, report: JSON.parse(readFileSync(outputFile, "utf8")) as VitestReport, output });
      } catch (error) {
        reject(new Error(`${runtime} wrote no vitest report: ${String(error)}\n${output.slice(-4000)}`));
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
  });
}

function expectAllPassed(
  { code, report, output }: { code: number | null; report: VitestReport; output: string },
  driver: SqliteDriverName,
): void {
  expect(code, output.slice(-4000)).toBe(0);
  const results = report.testResults.flatMap((file) => file.assertionResults);
  const failed = results.filter((result) => result.status !== "passed").map((result) => result.fullName);
  expect(failed, output.slice(-4000)).toEqual([]);
  expect(report.numFailedTests).toBe(0);
  const conformance = results.filter((result) => result.fullName.includes(`conformance: sqlite on ${driver}`));
  expect(conformance.length).toBeGreaterThanOrEqual(100); // both conformance runs (plain, group commit)
  expect(results.some((result) => result.fullName.includes(`is ${driver} by default on this runtime`))).toBe(true);
}

describe("the SQLite store on other runtimes: conformance, integrity and driver suites", () => {
  const node = runtimeBinary(RUNTIMES.node24);
  it.skipIf(node === undefined)(
    "pass on node:sqlite under Node.js 22.13 or later (NOUS_NODE24)",
    async () => {
      expectAllPassed(await runSuites(node as string, "node:sqlite"), "node:sqlite");
    },
    600_000,
  );

  const bun = runtimeBinary(RUNTIMES.bun);
  it.skipIf(bun === undefined)(
    "pass on bun:sqlite under Bun (NOUS_BUN)",
    async () => {
      expectAllPassed(await runSuites(bun as string, "bun:sqlite"), "bun:sqlite");
    },
    600_000,
  );
});
