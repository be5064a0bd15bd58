/** Runs a TypeScript test script in a child Node process and collects what it printed and how it exited. */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bundles = new Map<string, string[]>();

/**
 * Bundles `script` (a .ts path) into one CommonJS file with esbuild (which tsx ships), packages left
 * external and `import.meta.url` fixed to `metaUrl`.
 */
export function bundleScript(script: string, outfile: string, metaUrl: string): void {
  const esbuild = createRequire(import.meta.url)("esbuild") as { buildSync(options: Record<string, unknown>): unknown };
  esbuild.buildSync({
    entryPoints: [script],
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    outfile,
    logLevel: "silent",
    define: { "import.meta.url": JSON.stringify(metaUrl) },
  });
}

/**
 * The node arguments that run `script`: one CommonJS bundle (esbuild, which tsx ships), which starts
 * several times faster than `--import tsx`; tsx itself when esbuild is not there.
 */
export function commandOf(script: string): string[] {
  let command = bundles.get(script);
  if (command === undefined) {
    try {
      const outfile = join(mkdtempSync(join(tmpdir(), "nous-script-")), `${basename(script, ".ts")}.cjs`);
      // A CommonJS bundle has no import.meta: modules that resolve packages from it (code mode's
      // sandbox) resolve from the script's place in the repository.
      bundleScript(script, outfile, pathToFileURL(script).href);
      command = [outfile];
    } catch {
      command = ["--import", "tsx", script];
    }
    bundles.set(script, command);
  }
  return command;
}

export interface ScriptOutcome {
  /** The exit code (null when a signal ended the process). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: readonly string[];
  readonly stderr: string;
}

export interface ScriptOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  /** Called with each line the script prints on stdout, as it arrives. */
  readonly onLine?: (line: string) => void;
}

/** Runs `script` (an absolute path to a .ts file) to its exit. */
export function runScript(script: string, options: ScriptOptions = {}): Promise<ScriptOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...commandOf(script), ...(options.args ?? [])], {
      cwd: repoRoot,
      env: { ...process.env, NODE_PATH: join(repoRoot, "node_modules"), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buffer = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        options.onLine?.(line);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, lines, stderr }));
  });
}
