/**
 * One measurement in a fresh process (spawned by bench.ts; prints one JSON line).
 *
 *   worker.ts latency <baseline> <subject> <baseURL>                interleaved pairs, non-streaming and streaming
 *   worker.ts throughput <framework> <N> <baseURL> [stream] [pace=<ms>]   N concurrent runs
 *   worker.ts update <nous|langgraph>                               context update cost, in process (update-cost.ts)
 *
 * Before anything is timed, every framework measured against the server passes a correctness check:
 * one run non-streaming and one streaming, each must make exactly K+1 requests the server accepted
 * (GET /stats), run `add` K times and return the scripted answer. Every timed section is checked
 * the same way afterwards (request count, no rejected request, K tool calls a run).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { addCalls, type Factory, FINAL, frameworks, K, MODEL, pacedModel, type Runner } from "./frameworks.ts";
import { readStats } from "./mock-server.ts";
import { sessionResume } from "./session-resume.ts";
import { updateCost } from "./update-cost.ts";

const QUICK = process.env.BENCH_QUICK === "1";
const STEPS = K + 1;
const [mode, ...args] = process.argv.slice(2);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function factory(name: string): Factory {
  const make = frameworks[name];
  if (!make) throw new Error(`unknown framework ${name}`);
  return make;
}

/**
 * Runs `fn`, which makes `runs` runs (a number, or read after `fn` settles), and throws unless the
 * server saw exactly runs × STEPS requests, rejected none, and `add` ran runs × K times.
 */
async function counted<T>(
  label: string,
  baseURL: string,
  expected: number | (() => number),
  fn: () => Promise<T>,
): Promise<T> {
  const before = await readStats(baseURL);
  const calls = addCalls.count;
  const result = await fn();
  const runs = typeof expected === "number" ? expected : expected();
  const after = await readStats(baseURL);
  const requests = after.requests - before.requests;
  const rejected = after.rejected - before.rejected;
  const tools = addCalls.count - calls;
  if (requests !== runs * STEPS || rejected !== 0 || tools !== runs * K) {
    throw new Error(
      `${label}: ${runs} run(s) made ${requests} requests (${rejected} rejected) and ${tools} tool calls; expected ${runs * STEPS} requests, 0 rejected, ${runs * K} tool calls`,
    );
  }
  return result;
}

/** The correctness check before timing: one run each way, exact requests, scripted answer. */
async function verify(name: string, runner: Runner, baseURL: string): Promise<void> {
  for (const streaming of [false, true]) {
    const label = `correctness check ${name} ${streaming ? "streaming" : "non-streaming"}`;
    const text = await counted(label, baseURL, 1, () => (streaming ? runner.stream() : runner.run()));
    if (text !== FINAL)
      throw new Error(`${label}: final answer ${JSON.stringify(text)}, expected ${JSON.stringify(FINAL)}`);
  }
}

async function latency(baselineName: string, subjectName: string, baseURL: string) {
  const baseline = await factory(baselineName)(baseURL);
  const subject = await factory(subjectName)(baseURL);
  await verify(baselineName, baseline, baseURL);
  await verify(subjectName, subject, baseURL);
  const out: Record<string, unknown> = { verified: true };
  for (const streaming of [false, true]) {
    const pick = (runner: Runner) => (streaming ? () => runner.stream() : () => runner.run());
    const a = pick(baseline);
    const b = pick(subject);
    // Both sides need a few hundred runs before their medians settle (JIT tiers, undici's own code):
    // with 40 pairs, the first measured runs took 2-3x their steady time.
    const warmup = QUICK ? 150 : 400;
    const minPairs = QUICK ? 15 : 40;
    const maxPairs = QUICK ? 60 : 200;
    const budgetMs = QUICK ? 1_200 : 6_000;
    const base: number[] = [];
    const subj: number[] = [];
    const diffs: number[] = [];
    await counted(`latency ${subjectName}`, baseURL, 2 * warmup, async () => {
      for (let i = 0; i < warmup; i++) {
        await a();
        await b();
      }
    });
    await counted(
      `latency ${subjectName}`,
      baseURL,
      () => 2 * base.length,
      async () => {
        const started = performance.now();
        for (let i = 0; i < maxPairs && (i < minPairs || performance.now() - started < budgetMs); i++) {
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
      },
    );
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

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * N concurrent runs started at once (after a warm-up): runs/s, peak RSS, KiB per concurrent run,
 * event-loop delay p99. `paceMs` > 0 runs the measured burst against the paced model; the
 * correctness check and the warm-up use the instant one (same code path, no waiting).
 */
async function throughput(name: string, n: number, baseURL: string, streaming: boolean, paceMs: number) {
  const runner = await factory(name)(baseURL);
  const measured = paceMs > 0 ? await factory(name)(baseURL, pacedModel(paceMs)) : runner;
  await verify(name, runner, baseURL);
  const one = (r: Runner) => (streaming ? r.stream() : r.run());
  const burst = (r: Runner, size: number) =>
    counted(`${name} burst of ${size}`, baseURL, size, () => Promise.all(Array.from({ length: size }, () => one(r))));
  // Warm up: sequential runs, then one small concurrent burst, so JIT and connection pool are warm.
  const warmRuns = QUICK ? 100 : 300;
  await counted(`${name} warm-up`, baseURL, warmRuns, async () => {
    for (let i = 0; i < warmRuns; i++) await one(runner);
  });
  await burst(runner, Math.min(n, 100));
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const baselineRss = process.memoryUsage.rss();
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let peakRss = baselineRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 2);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const bursts = QUICK || n >= 500 || paceMs > 0 ? 1 : 3;
  const rates: number[] = [];
  let p99 = 0;
  for (let round = 0; round < bursts; round++) {
    if (round === 0) histogram.enable();
    const ms = await timed(() => burst(measured, n));
    if (round === 0) {
      histogram.disable();
      p99 = histogram.percentile(99) / 1e6;
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      clearInterval(sampler);
      // maxRSS is the lifetime peak; it counts only if the burst raised it above the warm-up's.
      const maxRss = process.resourceUsage().maxRSS * 1024;
      if (maxRss > maxRssBefore) peakRss = Math.max(peakRss, maxRss);
    }
    rates.push(n / (ms / 1000));
  }
  await runner.close?.();
  if (measured !== runner) await measured.close?.();
  return {
    verified: true,
    model: paceMs > 0 ? pacedModel(paceMs) : MODEL,
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
  else if (mode === "throughput") {
    const pace = args.find((arg) => arg.startsWith("pace="));
    result = await throughput(
      args[0]!,
      Number(args[1]),
      args[2]!,
      args.includes("stream"),
      pace ? Number(pace.slice(5)) : 0,
    );
  } else if (mode === "update") result = await updateCost(args[0]!, QUICK);
  else if (mode === "resume") result = await sessionResume(QUICK);
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`,
  );
  process.exit(1);
}
