/**
 * Nous side by side with peer agent frameworks, against a mock OpenAI-compatible server.
 *
 *   npm run bench                       (inside bench/peers)
 *   npm --prefix bench/peers run bench  (from the repository root)
 *   BENCH_QUICK=1 … / npm run bench:quick   a smoke run with fewer repetitions (numbers are noisier)
 *
 * Prints a markdown report (also written to results.md). See README.md in this folder.
 */
import { execFileSync, fork, spawn } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { coldImports, K } from "./frameworks.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const QUICK = process.env.BENCH_QUICK === "1";
const STEPS = K + 1; // model requests per run: K tool turns, then the final answer
const only = process.env.BENCH_ONLY?.split(",");
const started = performance.now();
const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

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
      } else if (name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(name) && !name.endsWith(".d.ts")) entryPoints.push(path);
    }
  };
  walk(src);
  const outdir = join(here, ".nous-dist");
  await build({ entryPoints, outdir, outbase: src, format: "esm", platform: "node", target: "node20", logLevel: "error" });
  return outdir;
}

// 2. The mock server, in its own process so the measured process does client work only.
function startServer(): Promise<{ baseURL: string; stop: () => void }> {
  const child = fork(join(here, "mock-server.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { baseURL: string }) => resolve({ baseURL: message.baseURL, stop: () => child.kill() }));
    child.once("exit", (code) => reject(new Error(`mock server exited (${code})`)));
  });
}

function worker(args: string[]): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(here, "worker.ts"), ...args], {
      cwd: here,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => {
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line));
      } catch {
        resolve({ error: `no result: ${out.slice(-500)}` });
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

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "—";
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "—");
const want = (name: string) => !only || only.includes(name);

const lines: string[] = [];
const out = (line = "") => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

const nousDist = await buildNous();
log(`compiled Nous to ${relative(repo, nousDist)}`);
const server = await startServer();
log(`mock server at ${server.baseURL}`);

const cpu = cpus();
out(`# Nous vs peer agent frameworks${QUICK ? " (QUICK run: fewer repetitions, noisier)" : ""}`);
out();
out(
  `Machine: ${cpu[0]?.model.trim()}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}. ` +
    `Task: one \`add\` tool, K=${K} tool turns then a final answer = ${STEPS} model requests per run, mock OpenAI-compatible server on 127.0.0.1 in a separate process.`,
);
out();

// ---- cold import
const coldNames = Object.keys(coldImports).filter(want);
const coldRuns = QUICK ? 3 : 7;
const cold: Record<string, number[]> = Object.fromEntries(coldNames.map((name) => [name, []]));
for (let round = 0; round < coldRuns; round++) {
  for (const name of coldNames) {
    const specs = coldImports[name]!.map((spec) =>
      spec.startsWith("@nous-dist/") ? pathToFileURL(join(nousDist, spec.slice("@nous-dist/".length))).href : spec,
    );
    cold[name]!.push(coldImport(specs));
  }
}
log("cold imports done");

// ---- latency: each subject interleaved run by run with its baseline in one process
const latencySubjects: [string, string][] = (
  [
    ["floor", "nous"],
    ["floor", "ai-sdk"],
    ["floor", "langgraph"],
    ["floor", "openai-agents"],
    ["floor", "nous+sqlite"],
    ["floor", "nous+sqlite-normal"],
    ["nous", "nous+update"],
  ] as [string, string][]
).filter(([, subject]) => want(subject));
const latency: Record<string, Record<string, any>> = {};
for (const [baseline, subject] of latencySubjects) {
  latency[subject] = await worker(["latency", baseline, subject, server.baseURL]);
  writeFileSync(join(here, "results.json"), JSON.stringify({ cold, latency }, null, 1));
  log(`latency ${subject}${latency[subject]!.error ? ` FAILED: ${latency[subject]!.error}` : ""}`);
}

// ---- throughput
const levels = [100, 500, 1000];
const throughputNames = ["nous", "nous+sqlite", "nous+sqlite-normal", "ai-sdk", "langgraph", "openai-agents"].filter(want);
const throughput: Record<number, Record<string, Record<string, any>>> = {};
// Keeps a full run near 10 minutes on 2 cores: a framework whose cell took longer than this skips
// the higher concurrency levels (reported as skipped).
const CELL_CAP_S = Number(process.env.BENCH_CELL_CAP_S ?? 45);
const tooSlow = new Set<string>();
for (const n of levels) {
  throughput[n] = {};
  const floors: Record<string, any>[] = [];
  floors.push(await worker(["throughput", "floor", String(n), server.baseURL]));
  for (const name of throughputNames) {
    if (tooSlow.has(name)) {
      throughput[n]![name] = { error: `skipped: the previous level took over ${CELL_CAP_S} s` };
      continue;
    }
    const cellStart = performance.now();
    throughput[n]![name] = await worker(["throughput", name, String(n), server.baseURL]);
    if (performance.now() - cellStart > CELL_CAP_S * 1000) tooSlow.add(name);
    writeFileSync(join(here, "results.json"), JSON.stringify({ cold, latency, throughput }, null, 1));
    log(`throughput ${name} @${n}${throughput[n]![name]!.error ? ` FAILED: ${throughput[n]![name]!.error}` : ""}`);
  }
  floors.push(await worker(["throughput", "floor", String(n), server.baseURL]));
  const ok = floors.filter((f) => !f.error);
  // The floor ran before and after the others at this level; its figures are the mean of both.
  const mean = (key: string) => ok.reduce((sum, f) => sum + f[key], 0) / ok.length;
  throughput[n]!.floor = ok.length
    ? { runsPerSec: mean("runsPerSec"), peakRssMiB: mean("peakRssMiB"), kibPerRun: mean("kibPerRun"), eldP99Ms: mean("eldP99Ms"), baselineRssMiB: mean("baselineRssMiB") }
    : floors[0]!;
  log(`throughput floor @${n}`);
}
server.stop();

// ---- report
out(`## Framework overhead per step (medians, K=${K}, ${STEPS} steps a run)`);
out();
out("Each row ran in its own process, interleaved run by run with the floor (a hand-written fetch loop), first-mover alternating.");
out("Overhead per step = median over pairs of (framework run − floor run) / steps. × floor = median framework run / median floor run.");
out();
out("| framework | pairs | run ms | floor ms | overhead µs/step | × floor | stream pairs | stream run ms | stream floor ms | stream overhead µs/step | stream × floor |");
out("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
for (const [baseline, subject] of latencySubjects) {
  if (baseline !== "floor") continue;
  const row = latency[subject]!;
  if (row.error) {
    out(`| ${subject} | failed: ${String(row.error).split("\n")[0]} |||||||||| `);
    continue;
  }
  const cell = (m: any) =>
    `${m.pairs} | ${fmt(m.subjectMs, 2)} | ${fmt(m.baselineMs, 2)} | ${fmt((m.diffMs * 1000) / STEPS)} | ${ratio(m.subjectMs / m.baselineMs)}`;
  out(`| ${subject} | ${cell(row.plain)} | ${cell(row.stream)} |`);
}
out();
const update = latency["nous+update"];
if (update && !update.error) {
  out("## Cost of a context update applied through a run (Nous only)");
  out();
  out(`\`add\` returns \`{ result, update: ContextUpdate.new().append("sums", a + b) }\` instead of a plain value; interleaved with plain Nous. Cost = median paired difference / ${K} updates.`);
  out();
  out("| mode | pairs | plain Nous run ms | with update run ms | cost per update µs |");
  out("|---|--:|--:|--:|--:|");
  for (const [mode, m] of [["non-streaming", update.plain], ["streaming", update.stream]] as const) {
    out(`| ${mode} | ${m.pairs} | ${fmt(m.baselineMs, 2)} | ${fmt(m.subjectMs, 2)} | ${fmt((m.diffMs * 1000) / K, 1)} |`);
  }
  out();
}
out("## Throughput (non-streaming, N concurrent runs started at once)");
out();
out(
  `Fresh process per cell; warm-up (20 sequential runs + one burst of min(N, 100)), then ${QUICK ? "1 burst" : "3 bursts (1 at N ≥ 500)"} of N runs: runs/s is the median burst; peak RSS, KiB per run ((peak − pre-burst RSS) / N) and event-loop delay p99 are from the first burst. The floor ran before and after the frameworks at each N (mean of both).`,
);
out();
out("| framework | N | runs/s | × floor | peak RSS MiB | KiB / concurrent run | × floor | event-loop delay p99 ms |");
out("|---|--:|--:|--:|--:|--:|--:|--:|");
for (const n of levels) {
  const floorRow = throughput[n]!.floor!;
  for (const name of ["floor", ...throughputNames]) {
    const row = throughput[n]![name]!;
    if (row.error) {
      out(`| ${name} | ${n} | failed: ${String(row.error).split("\n")[0]} ||||||`);
      continue;
    }
    out(
      `| ${name} | ${n} | ${fmt(row.runsPerSec)} | ${ratio(row.runsPerSec / floorRow.runsPerSec)} | ${fmt(row.peakRssMiB, 1)} | ${fmt(row.kibPerRun, 1)} | ${ratio(row.kibPerRun / floorRow.kibPerRun)} | ${fmt(row.eldP99Ms, 1)} |`,
    );
  }
}
out();
out(`## Cold import (fresh \`node\` process each, warm disk cache; median of ${coldRuns}, ms)`);
out();
out("| framework | modules imported | median ms | min | max |");
out("|---|---|--:|--:|--:|");
for (const name of coldNames) {
  const values = cold[name]!;
  const specs = coldImports[name]!.map((spec) => (spec.startsWith("@nous-dist/") ? "nous (src compiled to ESM)" : spec)).join(", ");
  out(`| ${name} | ${specs} | ${fmt(median(values), 1)} | ${fmt(Math.min(...values), 1)} | ${fmt(Math.max(...values), 1)} |`);
}
out();

// ---- targets
const nousLatency = latency.nous;
const t500 = throughput[500];
if (nousLatency && !nousLatency.error && t500?.nous && !t500.nous.error) {
  const plainRatio = nousLatency.plain.subjectMs / nousLatency.plain.baselineMs;
  const streamRatio = nousLatency.stream.subjectMs / nousLatency.stream.baselineMs;
  const tpRatio = t500.nous.runsPerSec / t500.floor!.runsPerSec;
  const memRatios = levels.map((n) => throughput[n]!.nous!.kibPerRun / throughput[n]!.floor!.kibPerRun);
  const mark = (ok: boolean) => (ok ? "met" : "**missed**");
  out("## Targets (Nous)");
  out();
  out("| target | measured | |");
  out("|---|--:|---|");
  out(`| non-streaming run ≤ 1.10× floor | ${ratio(plainRatio)} | ${mark(plainRatio <= 1.1)} |`);
  out(`| streaming run ≤ 1.20× floor | ${ratio(streamRatio)} | ${mark(streamRatio <= 1.2)} |`);
  out(`| throughput at 500 concurrent ≥ 0.8× floor | ${ratio(tpRatio)} | ${mark(tpRatio >= 0.8)} |`);
  out(
    `| memory per concurrent run ≤ 1.2× floor (N=${levels.join("/")}) | ${memRatios.map(ratio).join(" / ")} | ${mark(memRatios.every((r) => r <= 1.2))} |`,
  );
  out();
}
out(`Total benchmark time: ${((performance.now() - started) / 1000).toFixed(0)} s.`);
writeFileSync(join(here, "results.md"), `${lines.join("\n")}\n`);
process.exit(0);
