import { execFile } from "node:child_process";
import { cpSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, postgresReachable } from "../store/test-support/postgres-server.js";
import { RUNTIMES, type Runtime, runtimeBinary } from "../store/test-support/runtimes.js";
import { type PackedProject, packedProject } from "../test-support/packed-project.js";

/**
 * The runtime smoke matrix: one plain .mjs script (fixtures/runtime-smoke.mjs, the public API only)
 * run in a fresh project with the packed tarball installed, on Node.js 20 (this process's), 24 and
 * 26, Bun and Deno. Cases: a run with tools and context updates, a streamed run (events = log), a
 * SQLite session resumed after kill -9 of a child on the same runtime, a PostgreSQL session.
 * Other runtimes are installed under CI (see test-support/runtimes.ts), skipped locally with a line.
 */
const run = promisify(execFile);
const smoke = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "runtime-smoke.mjs");
/** Deno's permissions (no --allow-sys, no -A): files (SQLite, temp folders), env, loopback (PostgreSQL), the crash child. */
const denoFlags = "--cached-only --allow-read --allow-write --allow-env --allow-net=127.0.0.1 --allow-run";

interface Target {
  readonly name: string;
  readonly binary: string | undefined;
  readonly prefix: readonly string[];
  /** The SQLite driver the default store picks there. */
  readonly driver: string;
}

const other = (name: string, runtime: Runtime, driver: string, prefix: string[] = []): Target => ({
  name,
  binary: runtimeBinary(runtime, "runtime smoke tests"),
  prefix,
  driver,
});
const targets: Target[] = [
  { name: "node20", binary: process.execPath, prefix: [], driver: "better-sqlite3" },
  other("node24", RUNTIMES.node24, "node:sqlite"),
  other("node26", RUNTIMES.node26, "node:sqlite"),
  other("bun", RUNTIMES.bun, "bun:sqlite"),
  other("deno", RUNTIMES.deno, "node:sqlite", ["run", ...denoFlags.split(" ")]),
];
const cases = ["tools", "stream", "sqlite-crash", "postgres"] as const;
const withPostgres = await postgresReachable("runtime smoke tests (postgres case)");

let project: PackedProject;

beforeAll(async () => {
  // Node 20 has no node:sqlite: it needs better-sqlite3 (packedProject gives it this repository's build).
  project = packedProject({ with: ["pg@8.23.1", "better-sqlite3@12.6.2"] });
  cpSync(smoke, join(project.dir, "runtime-smoke.mjs"));
}, 600_000);

afterAll(() => project?.remove(), 120_000);

describe.each(targets.filter((target) => target.binary !== undefined))("the installed package on $name", (target) => {
  it.each(cases.filter((name) => name !== "postgres" || withPostgres))("%s", async (name) => {
    const { stdout } = await run(target.binary as string, [...target.prefix, "runtime-smoke.mjs", name], {
      cwd: project.dir,
      timeout: 120_000,
      env: { ...process.env, DATABASE_URL, NOUS_SMOKE_DENO_FLAGS: denoFlags, DENO_NO_UPDATE_CHECK: "1" },
    });
    const line = stdout.split("\n").find((text) => text.startsWith("RESULT "));
    const result = JSON.parse(line?.slice("RESULT ".length) ?? "null") as Record<string, unknown>;
    expect(result.case).toBe(name);
    expect(String(result.runtime)).toMatch(target.name.startsWith("node") ? /^node / : new RegExp(`^${target.name} `));
    if (target.name.startsWith("node"))
      expect(String(result.runtime)).toMatch(new RegExp(`^node ${target.name.slice(4)}\\.`));
    expect(result.output ?? "finished: 2 + 3 = 5").toBe("finished: 2 + 3 = 5");
    if (name === "sqlite-crash") expect(result.driver).toBe(target.driver);
    if (name === "postgres") expect(result.deps).toEqual({ notes: ["sum recorded", "sum recorded"], total: 5 });
  }, 150_000);
});
