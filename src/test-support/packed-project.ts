/**
 * The package as a user gets it: `npm pack` of this repository, installed alone into a fresh
 * project folder with its own node_modules (no dev dependencies, no link back to the repository).
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

let packed: string | undefined;

/**
 * Packs the repository once per process (`dist/` must be built: `npm test` builds first) and
 * returns the tarball's path. `NOUS_TARBALL` names a tarball packed already.
 */
export function packTarball(): string {
  if (process.env.NOUS_TARBALL) return process.env.NOUS_TARBALL;
  if (packed !== undefined && existsSync(packed)) return packed;
  if (!existsSync(join(repoRoot, "dist", "index.js"))) throw new Error("dist/ is not built: run npm run build");
  const folder = mkdtempSync(join(tmpdir(), "nous-pack-"));
  const output = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", folder], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const [result] = JSON.parse(output) as { filename: string }[];
  if (!result) throw new Error(`npm pack printed no file: ${output.slice(0, 200)}`);
  packed = join(folder, result.filename);
  return packed;
}

export interface ProjectOptions {
  /**
   * Packages installed beside nous, as npm specs ("tsx@4", "better-sqlite3@12"). better-sqlite3 gets
   * this repository's built binary instead of a source build.
   */
  readonly with?: readonly string[];
  /** package.json fields of the user's project (default: `{ "type": "module" }`). */
  readonly manifest?: Record<string, unknown>;
}

export interface PackedProject {
  readonly dir: string;
  readonly tarball: string;
  /** Packages and bytes under node_modules (what `npm i nous` costs the user). */
  installedSize(): { packages: number; bytes: number };
  remove(): void;
}

/** A fresh project folder with the packed tarball installed, as `npm i ./nous-x.y.z.tgz` does. */
export function packedProject(options: ProjectOptions = {}): PackedProject {
  const tarball = packTarball();
  const dir = mkdtempSync(join(tmpdir(), "nous-user-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "nous-user", private: true, version: "0.0.0", ...(options.manifest ?? { type: "module" }) }),
  );
  const install = (args: readonly string[]) =>
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...args], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 600_000,
    });
  const specs = options.with ?? [];
  const native = specs.filter((spec) => prebuiltOf(spec) !== undefined);
  install([tarball, ...specs.filter((spec) => !native.includes(spec))]);
  if (native.length > 0) {
    // Installed without their build scripts, then given the binary this repository built for this
    // Node.js: what their prebuilt download gives, which this machine cannot fetch (a source build
    // takes minutes).
    install(["--ignore-scripts", ...native]);
    for (const spec of native) {
      const binary = prebuiltOf(spec) as string;
      mkdirSync(dirname(join(dir, "node_modules", binary)), { recursive: true });
      copyFileSync(join(repoRoot, "node_modules", binary), join(dir, "node_modules", binary));
    }
  }
  return {
    dir,
    tarball,
    installedSize: () => folderSize(join(dir, "node_modules")),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Native packages whose built binary (under node_modules) is taken from this repository's install. */
const PREBUILT: Record<string, string> = {
  "better-sqlite3": join("better-sqlite3", "build", "Release", "better_sqlite3.node"),
};

function prebuiltOf(spec: string): string | undefined {
  const name = spec.startsWith("@") ? `@${spec.slice(1).split("@")[0]}` : spec.split("@")[0];
  return name === undefined ? undefined : PREBUILT[name];
}

/** Installed packages (folders holding a package.json directly under node_modules) and bytes. */
export function folderSize(nodeModules: string): { packages: number; bytes: number } {
  let packages = 0;
  let bytes = 0;
  const walk = (folder: string, depthInModules: boolean): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        if (depthInModules && !entry.name.startsWith(".")) {
          if (entry.name.startsWith("@")) {
            walk(path, true);
            continue;
          }
          if (existsSync(join(path, "package.json"))) packages++;
        }
        walk(path, entry.name === "node_modules");
      } else if (entry.isFile()) bytes += statSync(path).size;
    }
  };
  if (existsSync(nodeModules)) walk(nodeModules, true);
  return { packages, bytes };
}

/** Writes `files` (relative path → text) into the project. */
export function writeProjectFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
