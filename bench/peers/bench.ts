/**
 * Nous side by side with peer agent frameworks, against a mock OpenAI-compatible server.
 *
 *   npm run bench                      (inside bench/; from the repository root: npm run bench:peers)
 *   npm run bench -- --quick           a shorter run: fewer repetitions and cells (numbers are noisier)
 *   npm run bench -- --only=nous,ai-sdk   a subset (the floor always runs)
 *
 *   npm run bench -- --targets         issue 20's targets only: the floor and Nous (and its stores);
 *                                      prints the targets table (from the repository root:
 *                                      npm run bench:targets [-- --quick])
 *
 * BENCH_QUICK=1, BENCH_TARGETS=1 and BENCH_ONLY=… work too. Prints a markdown report (also written to
 * results.md, or targets-results.md; raw figures to results.json). See ../README.md.
 */
import { execFileSync, fork, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { targetsTable } from "../targets-table.ts";
import { coldProcess } from "./cold-process.ts";
import { coldImports, DATABASE_URL } from "./frameworks.ts";
import { type Failed, type Results, report, type ThroughputCell } from "./report.ts";
import { machine, targetRows } from "./targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick") || process.env.BENCH_QUICK === "1";
process.env.BENCH_QUICK = QUICK ? "1" : "0"; // workers read it
const TARGETS = argv.includes("--targets") || process.env.BENCH_TARGETS === "1";
process.env.BENCH_TARGETS = TARGETS ? "1" : "0";
const load = loadavg();

/** Whether the PostgreSQL server for `nous+postgres` answers. */
async function postgresReachable(): Promise<boolean> {
  try {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
const withPostgres = await postgresReachable();
const only = TARGETS
  ? ["nous", "nous (dist/)", "nous+sqlite", "nous+sqlite-normal", ...(withPostgres ? ["nous+postgres"] : [])]
  : (argv.find((arg) => arg.startsWith("--only="))?.slice(7) ?? process.env.BENCH_ONLY)?.split(",");
/** Mean gap between paced SSE events (see mock-server.ts). */
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 200);
/** Past this many seconds, optional cells (the peers' throughput cells) are skipped, keeping a full run under 15 minutes. */
const BUDGET_S = Number(process.env.BENCH_BUDGET_S ?? 600);
/** A worker that takes longer than this is killed and its cell fails. */
const WORKER_TIMEOUT_S = Number(process.env.BENCH_WORKER_TIMEOUT_S ?? 240);
const started = performance.now();
const elapsed = () => (performance.now() - started) / 1000;
const log = (line: string) => process.stderr.write(`[${elapsed().toFixed(0).padStart(4)} s] ${line}\n`);
const want = (name: string) =>
  (name === "floor" || !only || only.includes(name) || only.includes(name.split(" ")[0]!)) &&
  (name !== "nous+postgres" || withPostgres);

// 1. Compile Nous's current source to plain ESM (esbuild, per file, no bundling) for the cold
//    import measurement: what a user's `import "nous"` loads, without a TypeScript loader.
async function buildNous(): Promise<string> {
  const { build } = await import("esbuild");
  const src = join(repo, "src");
  const entryPoints: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== "test-support") walk(path);
      } else if (name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(name) && !name.endsWith(".d.ts"))
        entryPoints.push(path);
    }
  };
  walk(src);
  const outdir = join(here, ".nous-dist");
  await build({
    entryPoints,
    outdir,
    outbase: src,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
  });
  return outdir;
}

// 2. The mock server, in its own process so the measured process does client work only.
function startServer(): Promise<{ baseURL: string; stop: () => void }> {
  const child = fork(join(here, "mock-server.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { baseURL: string }) =>
      resolve({ baseURL: message.baseURL, stop: () => child.kill() }),
    );
    child.once("exit", (code) => reject(new Error(`mock server exited (${code})`)));
  });
}

/** One measurement in a fresh process; resolves to its JSON result, or `{ error }`. */
function worker<T>(args: string[]): Promise<T | Failed> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(here, "worker.ts"), ...args], {
      cwd: here,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      err += `killed after ${WORKER_TIMEOUT_S} s\n`;
      child.kill();
    }, WORKER_TIMEOUT_S * 1000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    // Warnings (e.g. MaxListenersExceededWarning) are worth seeing, once each, but not mid-table.
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("close", () => {
      clearTimeout(timer);
      for (const line of new Set(err.split("\n").filter((l) => l.trim() && !l.startsWith("(Use `node")))) {
        log(`  ${args.slice(0, 2).join(" ")}: ${line}`);
      }
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as T | Failed);
      } catch {
        resolve({ error: `no result: ${out.slice(-500)}${err.slice(-500)}` });
      }
    });
  });
}

function coldImport(specifiers: string[]): number {
  const code =
    "const t = performance.now(); for (const s of JSON.parse(process.env.SPECS)) await import(s); " +
    "process.stdout.write(String(performance.now() - t));";
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: here,
    env: { ...process.env, SPECS: JSON.stringify(specifiers) },
    encoding: "utf8",
  });
  return Number(out);
}

const isFailed = (value: unknown): value is Failed => typeof value === "object" && value !== null && "error" in value;
const failures: string[] = [];
function note(label: string, result: unknown) {
  if (isFailed(result)) {
    failures.push(`${label}: ${result.error}`);
    log(`${label} FAILED: ${result.error.split("\n")[0]}`);
  } else log(label);
}

const nousDist = await buildNous();
// Every worker runs Nous from this build (plain ESM, as users import it), not through a TypeScript loader.
process.env.NOUS_ENTRY ??= join(nousDist, "index.js");
log(`compiled Nous to ${relative(repo, nousDist)}`);
const server = await startServer();
log(`mock server at ${server.baseURL}${QUICK ? " (quick run)" : ""}`);
const results: Results = {
  quick: QUICK,
  targets: TARGETS,
  load,
  paceMs: PACE_MS,
  cold: {},
  coldRuns: QUICK ? 3 : 7,
  latency: {},
  update: {},
  throughput: { plain: {}, stream: {}, paced: {} },
};
const save = () =>
  writeFileSync(join(here, TARGETS ? "targets-results.json" : "results.json"), JSON.stringify(results, null, 1));

// ---- cold import: fresh node per sample, round-robin over frameworks
const nousBuild = join(repo, "dist");
const resolveSpec = (spec: string) =>
  spec.startsWith("@nous-dist/")
    ? pathToFileURL(join(nousDist, spec.slice("@nous-dist/".length))).href
    : spec.startsWith("@nous-build/")
      ? pathToFileURL(join(nousBuild, spec.slice("@nous-build/".length))).href
      : spec;
const coldNames = Object.keys(coldImports).filter(
  (name) => want(name) && (!name.includes("dist/") || existsSync(join(nousBuild, "index.js"))),
);
for (const name of coldNames) results.cold[name] = [];
for (let round = 0; round < results.coldRuns; round++) {
  for (const name of coldNames) results.cold[name]!.push(coldImport(coldImports[name]!.map(resolveSpec)));
}
const coldEntries = Object.fromEntries(
  coldNames.filter((name) => name.startsWith("nous")).map((name) => [name, coldImports[name]!.map(resolveSpec)]),
);
results.coldProcess = coldProcess(here, coldEntries, QUICK ? 5 : 15);
log("cold imports");

// ---- latency: each subject interleaved run by run with the floor, in its own process
const latencyNames = [
  "nous",
  "ai-sdk",
  "langgraph",
  "openai-agents",
  "nous+sqlite",
  "nous+sqlite-normal",
  "nous+postgres",
].filter(want);
for (const name of latencyNames) {
  results.latency[name] = await worker(["latency", "floor", name, server.baseURL]);
  save();
  note(`latency ${name}`, results.latency[name]);
}

// ---- context update through a run, in process
for (const name of ["nous", "langgraph"].filter(want)) {
  results.update[name] = await worker(["update", name]);
  save();
  note(`context update ${name}`, results.update[name]);
}

// ---- a 10,000-event session loaded from SQLite and carried on, in process
results.resume = await worker(["resume"]);
save();
note("session resume", results.resume);

// ---- throughput: N concurrent runs, one process per cell
type Kind = keyof Results["throughput"];
const peers = ["ai-sdk", "langgraph", "openai-agents"];
/**
 * Which frameworks each kind of cell runs at each N (the floor runs first, and last in a full run).
 * A quick run keeps every kind of cell but runs the peers only in the latency and cold-import rows.
 */
function plan(kind: Kind, n: number): string[] {
  if (TARGETS) return ["nous"];
  if (kind === "paced") return ["nous", ...(QUICK ? [] : peers)];
  if (kind === "stream") return ["nous", ...(QUICK ? [] : ["nous+sqlite", ...peers])];
  if (QUICK) return n === 500 ? ["nous", "nous+sqlite"] : ["nous"];
  return ["nous", "nous+sqlite", "nous+sqlite-normal", ...peers];
}
const optional = (name: string) => peers.includes(name);
// A framework whose cell took longer than this skips the higher concurrency levels (full run).
const CELL_CAP_S = Number(process.env.BENCH_CELL_CAP_S ?? 45);
const kinds: [Kind, number[]][] = [
  ["plain", [100, 500, 1000]],
  ["stream", QUICK && !TARGETS ? [500, 1000] : [100, 500, 1000]],
  ["paced", [1000]],
];
for (const [kind, levels] of kinds) {
  const tooSlow = new Set<string>();
  for (const n of levels) {
    const row: Record<string, ThroughputCell | Failed> = {};
    results.throughput[kind][n] = row;
    const args = (name: string) => [
      "throughput",
      name,
      String(n),
      server.baseURL,
      ...(kind === "plain" ? [] : ["stream"]),
      ...(kind === "paced" ? [`pace=${PACE_MS}`] : []),
    ];
    const floors: (ThroughputCell | Failed)[] = [await worker<ThroughputCell>(args("floor"))];
    note(`throughput ${kind} floor @${n}`, floors[0]);
    for (const name of plan(kind, n).filter(want)) {
      if (tooSlow.has(name)) {
        row[name] = { error: `skipped: the previous level took over ${CELL_CAP_S} s` };
        continue;
      }
      if (optional(name) && elapsed() > BUDGET_S) {
        row[name] = { error: `skipped: past the ${BUDGET_S} s budget for optional cells` };
        continue;
      }
      const cellStart = performance.now();
      row[name] = await worker<ThroughputCell>(args(name));
      if (performance.now() - cellStart > CELL_CAP_S * 1000) tooSlow.add(name);
      save();
      note(`throughput ${kind} ${name} @${n}`, row[name]);
    }
    if (!QUICK && kind !== "paced") {
      floors.push(await worker<ThroughputCell>(args("floor")));
      note(`throughput ${kind} floor @${n} (again)`, floors[1]);
    }
    const ok = floors.filter((floor): floor is ThroughputCell => !isFailed(floor));
    // In a full run the floor ran before and after the others at this level: the mean of both.
    const mean = (key: keyof ThroughputCell) => ok.reduce((sum, floor) => sum + (floor[key] as number), 0) / ok.length;
    row.floor = ok.length
      ? {
          ...ok[0]!,
          runsPerSec: mean("runsPerSec"),
          peakRssMiB: mean("peakRssMiB"),
          kibPerRun: mean("kibPerRun"),
          eldP99Ms: mean("eldP99Ms"),
          baselineRssMiB: mean("baselineRssMiB"),
        }
      : floors[0]!;
    save();
  }
}
server.stop();

// Keep the floor first in each throughput row.
for (const kind of Object.keys(results.throughput) as Kind[]) {
  for (const [n, row] of Object.entries(results.throughput[kind])) {
    const { floor, ...rest } = row;
    results.throughput[kind][Number(n)] = floor ? { floor, ...rest } : rest;
  }
}
save();
const markdown = report(results, elapsed(), failures);
if (TARGETS) {
  // One table on stdout; the detailed report beside it.
  process.stdout.write(targetsTable(targetRows(results), machine(load)));
  if (failures.length > 0) process.stdout.write(`\nFailures:\n${failures.map((f) => `- ${f.split("\n")[0]}`).join("\n")}\n`);
  process.stdout.write(`\nDetails: bench/peers/targets-results${QUICK ? ".quick" : ""}.md (${elapsed().toFixed(0)} s)\n`);
  writeFileSync(join(here, `targets-results${QUICK ? ".quick" : ""}.md`), markdown);
} else {
  process.stdout.write(markdown);
  writeFileSync(join(here, "results.md"), markdown);
}
process.exit(failures.length > 0 ? 1 : 0);
