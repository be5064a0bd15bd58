/**
 * One measurement in a fresh process (spawned by bench.ts; prints one JSON line).
 *
 *   worker.ts latency <baseline> <subject> <baseURL>     interleaved pairs, non-streaming and streaming
 *   worker.ts throughput <framework> <N> <baseURL>       N concurrent runs (non-streaming)
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { addCalls, frameworks, K, type Runner } from "./frameworks.ts";

const QUICK = process.env.BENCH_QUICK === "1";
const [mode, ...args] = process.argv.slice(2);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Wraps a runner so that every run (or burst of runs) is checked to have called `add` K times each. */
async function load(name: string, baseURL: string): Promise<Runner> {
  const factory = frameworks[name];
  if (!factory) throw new Error(`unknown framework ${name}`);
  const runner = await factory(baseURL);
  const checked = (fn: () => Promise<void>) => async () => {
    const before = addCalls.count;
    await fn();
    if (addCalls.count - before !== K) throw new Error(`${name}: add ran ${addCalls.count - before} times, expected ${K}`);
  };
  return { run: checked(() => runner.run()), stream: checked(() => runner.stream()), close: runner.close && (() => runner.close!()) };
}

/** N concurrent runs; checks the total number of tool calls (a per-run count cannot be told apart). */
async function burst(runner: Runner, raw: Runner, n: number) {
  const before = addCalls.count;
  await Promise.all(Array.from({ length: n }, () => raw.run()));
  if (addCalls.count - before !== n * K) throw new Error(`add ran ${addCalls.count - before} times in ${n} runs, expected ${n * K}`);
  void runner;
}

async function latency(baselineName: string, subjectName: string, baseURL: string) {
  const baseline = await load(baselineName, baseURL);
  const subject = await load(subjectName, baseURL);
  const out: Record<string, unknown> = {};
  for (const streaming of [false, true]) {
    const pick = (runner: Runner) => (streaming ? () => runner.stream() : () => runner.run());
    const a = pick(baseline);
    const b = pick(subject);
    const warmup = QUICK ? 15 : 40;
    for (let i = 0; i < warmup; i++) {
      await a();
      await b();
    }
    const maxPairs = QUICK ? 60 : 200;
    const budgetMs = QUICK ? 4_000 : 12_000;
    const base: number[] = [];
    const subj: number[] = [];
    const diffs: number[] = [];
    const started = performance.now();
    for (let i = 0; i < maxPairs && (i < 30 || performance.now() - started < budgetMs); i++) {
      // Alternate which goes first so neither always runs on a warmer or colder machine.
      let ta: number;
      let tb: number;
      if (i % 2 === 0) {
        ta = await timed(a);
        tb = await timed(b);
      } else {
        tb = await timed(b);
        ta = await timed(a);
      }
      base.push(ta);
      subj.push(tb);
      diffs.push(tb - ta);
    }
    out[streaming ? "stream" : "plain"] = {
      pairs: base.length,
      baselineMs: median(base),
      subjectMs: median(subj),
      diffMs: median(diffs),
    };
  }
  await baseline.close?.();
  await subject.close?.();
  return out;
}

async function throughput(name: string, n: number, baseURL: string) {
  const runner = await load(name, baseURL);
  const raw = await frameworks[name]!(baseURL);
  // Warm up: sequential runs, then one small concurrent burst, so JIT and connection pool are warm.
  for (let i = 0; i < 20; i++) await runner.run();
  await burst(runner, raw, Math.min(n, 100));
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  (globalThis as { gc?: () => void }).gc?.();
  const baselineRss = process.memoryUsage.rss();
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let peakRss = baselineRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 2);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const bursts = QUICK || n >= 500 ? 1 : 3;
  const rates: number[] = [];
  let p99 = 0;
  for (let round = 0; round < bursts; round++) {
    if (round === 0) histogram.enable();
    const ms = await timed(() => burst(runner, raw, n));
    if (round === 0) {
      histogram.disable();
      p99 = histogram.percentile(99) / 1e6;
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      clearInterval(sampler);
      // maxRSS is the lifetime peak; it counts only if the burst raised it above the warmup's.
      const maxRss = process.resourceUsage().maxRSS * 1024;
      if (maxRss > maxRssBefore) peakRss = Math.max(peakRss, maxRss);
    }
    rates.push(n / (ms / 1000));
  }
  await runner.close?.();
  await raw.close?.();
  return {
    runsPerSec: median(rates),
    peakRssMiB: peakRss / 2 ** 20,
    baselineRssMiB: baselineRss / 2 ** 20,
    kibPerRun: (peakRss - baselineRss) / 1024 / n,
    eldP99Ms: p99,
  };
}

try {
  let result: unknown;
  if (mode === "latency") result = await latency(args[0]!, args[1]!, args[2]!);
  else if (mode === "throughput") result = await throughput(args[0]!, Number(args[1]), args[2]!);
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`);
  process.exit(1);
}
