// Compares the runner's cost per step of this checkout with a base (a commit or a folder), running
// the SAME bench code (bench/loop-overhead.bench.ts, pointed at each checkout with NOUS_BENCH_ROOT)
// in fresh processes, base and current alternately, and prints per-case medians, minimums and the
// ratio current/base.
//
//   node bench/compare.mjs --base c1fa1ad                # 7 rounds each
//   node bench/compare.mjs --base ../wt-base --rounds 11 --secrets 1
//
// --base      a commit (its src/ is extracted with `git archive` to a temporary folder that uses
//             this checkout's node_modules) or a folder holding a checkout with its node_modules
// --current   the same, for the other side (default: this checkout's working tree)
// --rounds    processes per side (default 7)
// --inner     measurement rounds inside each process, their median kept (BENCH_ROUNDS, default 3: the
//             first round of a process still carries JIT warm-up)
// --secrets   registered secrets (BENCH_SECRETS, default 0)
// --clock     wall (default) or cpu: the process's CPU time, steadier when other work shares the machine
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const here = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    base: { type: "string" },
    current: { type: "string" },
    rounds: { type: "string", default: "7" },
    inner: { type: "string", default: "3" },
    secrets: { type: "string", default: "0" },
    clock: { type: "string", default: "wall" },
  },
});
if (values.base === undefined) {
  console.error(
    "usage: node bench/compare.mjs --base <commit|folder> [--current <commit|folder>] [--rounds 7] [--inner 3]" +
      " [--secrets 0] [--clock wall|cpu]",
  );
  process.exit(2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

const temporary = [];
/** The folder to benchmark for a commit or a folder: a commit's files go to a temporary folder. */
function checkout(source) {
  const folder = path.resolve(source);
  if (existsSync(folder)) return folder;
  const extracted = mkdtempSync(path.join(tmpdir(), "nous-bench-"));
  temporary.push(extracted);
  const archive = path.join(extracted, "source.tar");
  execFileSync("git", ["-C", here, "archive", "-o", archive, source, "src", "package.json", "tsconfig.json"]);
  execFileSync("tar", ["-x", "-f", archive, "-C", extracted]);
  symlinkSync(path.join(here, "node_modules"), path.join(extracted, "node_modules"), "dir");
  return extracted;
}
const cleanup = () => {
  for (const folder of temporary) rmSync(folder, { recursive: true, force: true });
};
const baseRoot = checkout(values.base);
const currentRoot = values.current === undefined ? here : checkout(values.current);

/** One fresh process of the bench against `root`: µs/step per case label. */
function runOnce(root) {
  const output = execFileSync(process.execPath, ["--import", "tsx", path.join(here, "bench/loop-overhead.bench.ts")], {
    cwd: here,
    encoding: "utf8",
    env: {
      ...process.env,
      NOUS_BENCH_ROOT: root,
      BENCH_ROUNDS: values.inner,
      BENCH_SECRETS: values.secrets,
      BENCH_CLOCK: values.clock,
    },
  });
  const rows = new Map();
  for (const match of output.matchAll(/^\| (.+?) +\| +([\d.]+) \|$/gm)) rows.set(match[1], Number(match[2]));
  if (rows.size === 0) throw new Error(`no figures in the bench output:\n${output}`);
  return rows;
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const samples = { base: new Map(), current: new Map() };
try {
  for (let round = 0; round < rounds; round++) {
    // Alternate who goes first, so a drift in machine load hits both sides alike.
    const order = round % 2 === 0 ? ["base", "current"] : ["current", "base"];
    for (const side of order) {
      for (const [label, value] of runOnce(side === "base" ? baseRoot : currentRoot)) {
        samples[side].set(label, [...(samples[side].get(label) ?? []), value]);
      }
    }
    process.stderr.write(`round ${round + 1}/${rounds}\n`);
  }
} finally {
  cleanup();
}

console.log(
  `Cost per step (µs), base ${values.base} vs ${values.current ?? "current"}, ${rounds} fresh processes each` +
    ` (BENCH_ROUNDS=${values.inner}, BENCH_SECRETS=${values.secrets}, ${values.clock} clock)\n`,
);
console.log("| case                         | base median | base min | new median | new min | new/base (median) |");
console.log("|------------------------------|------------:|---------:|-----------:|--------:|------------------:|");
const cell = (value, width) => value.toFixed(1).padStart(width);
for (const [label, current] of samples.current) {
  const base = samples.base.get(label) ?? [];
  const ratio = base.length > 0 ? (median(current) / median(base)).toFixed(3) : "n/a";
  console.log(
    `| ${label.padEnd(28)} | ${base.length > 0 ? cell(median(base), 11) : "n/a".padStart(11)} | ${base.length > 0 ? cell(Math.min(...base), 8) : "n/a".padStart(8)} | ` +
      `${cell(median(current), 10)} | ${cell(Math.min(...current), 7)} | ${ratio.padStart(17)} |`,
  );
}
