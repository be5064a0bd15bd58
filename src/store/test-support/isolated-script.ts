/**
 * Test support: runs a TypeScript script as a user's project would without any package installed:
 * bundled (esbuild, which tsx ships) into a temporary folder with no node_modules, its
 * `import.meta.url` in that folder and no NODE_PATH, so `require("better-sqlite3")` finds nothing.
 * The folder's node_modules holds only what installing nous always brings that the store loads
 * (`@noble/hashes`, linked from this repository).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundleScript } from "../../test-support/node-script.js";

/** Runs `script` (absolute .ts path) with the running runtime; returns its exit code and output. */
export function runIsolated(script: string): { code: number | null; stdout: string; stderr: string } {
  const folder = mkdtempSync(join(tmpdir(), "nous-isolated-"));
  const outfile = join(folder, "script.cjs");
  const repoModules = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "node_modules");
  mkdirSync(join(folder, "node_modules", "@noble"), { recursive: true });
  symlinkSync(join(repoModules, "@noble", "hashes"), join(folder, "node_modules", "@noble", "hashes"), "dir");
  bundleScript(script, outfile, pathToFileURL(outfile).href);
  const { NODE_PATH: _, ...env } = process.env;
  const result = spawnSync(process.execPath, [outfile], { cwd: folder, env, encoding: "utf8", timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
