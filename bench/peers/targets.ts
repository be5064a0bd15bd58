/**
 * Issue 20's targets, judged from one bench.ts run: every row with its target, the measured figure
 * and met / missed. Ratios are to the floor (the hand-written fetch loop) measured in the same run.
 */
import { cpus, loadavg, totalmem } from "node:os";
import {
  allMet,
  atLeast,
  atMost,
  formatNumber as fmt,
  formatRatio as ratio,
  type Machine,
  type TargetRow,
} from "../targets-table.ts";
import { type Failed, type LatencyRow, ok, type Results, type ThroughputCell } from "./report.ts";
import { K } from "./frameworks.ts";
import { SIZES, VARIANTS } from "./update-cost.ts";

/** "Flat": the cost at the largest state is at most twice the cost at the smallest, or within 1 µs of it. */
export const isFlat = (smallest: number, largest: number) => largest <= Math.max(2 * smallest, smallest + 1);

export function machine(load = loadavg()): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cores: cpu.length,
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    load,
  };
}

export function targetRows(results: Results): TargetRow[] {
  const rows: TargetRow[] = [];
  const { latency, throughput } = results;
  const runRatio = (name: string, mode: keyof LatencyRow) => {
    const row = ok(latency[name]);
    return row && row[mode].subjectMs / row[mode].baselineMs;
  };
  const perStep = (name: string, mode: keyof LatencyRow) => {
    const row = ok(latency[name]);
    return row ? `${ratio(runRatio(name, mode))} (+${fmt((row[mode].diffMs * 1000) / (K + 1))} µs/step)` : "—";
  };
  for (const [mode, label, limit] of [
    ["plain", "non-streaming", 1.1],
    ["stream", "streaming", 1.15],
  ] as const) {
    rows.push({
      row: `per step, ${label}`,
      target: `≤ ${limit.toFixed(2)}× floor`,
      measured: perStep("nous", mode),
      met: atMost(runRatio("nous", mode), limit),
    });
  }

  const vsFloor = (cells: Record<string, ThroughputCell | Failed> | undefined, key: keyof ThroughputCell) => {
    const nous = ok(cells?.nous);
    const floor = ok(cells?.floor);
    return nous && floor ? (nous[key] as number) / (floor[key] as number) : undefined;
  };
  for (const [kind, label] of [
    ["plain", "non-streaming"],
    ["stream", "streaming"],
  ] as const) {
    for (const n of [100, 500, 1000]) {
      const cells = throughput[kind][n];
      const nous = ok(cells?.nous);
      const floor = ok(cells?.floor);
      const runs = vsFloor(cells, "runsPerSec");
      rows.push({
        row: `throughput, ${fmt(n)} concurrent runs, ${label}`,
        target: "≥ 0.90× floor",
        measured: nous && floor ? `${ratio(runs)} (${fmt(nous.runsPerSec)} vs ${fmt(floor.runsPerSec)} runs/s)` : "—",
        met: atLeast(runs, 0.9),
      });
      const memory = vsFloor(cells, "kibPerRun");
      rows.push({
        row: `memory per concurrent run, ${fmt(n)} runs, ${label}`,
        target: "≤ 1.20× floor",
        measured:
          nous && floor ? `${ratio(memory)} (${fmt(nous.kibPerRun, 1)} vs ${fmt(floor.kibPerRun, 1)} KiB)` : "—",
        met: atMost(memory, 1.2),
      });
    }
  }

  const paced = throughput.paced[1000];
  const instant = throughput.stream[1000];
  const [nousEld, floorEld] = [ok(paced?.nous)?.eldP99Ms, ok(paced?.floor)?.eldP99Ms];
  rows.push({
    row: "1,000 concurrent streaming runs, event-loop delay p99 (paced model)",
    target: "≤ floor + 20 ms",
    measured:
      `${fmt(nousEld, 1)} ms vs floor ${fmt(floorEld, 1)} ms (instant server: ${fmt(ok(instant?.nous)?.eldP99Ms, 1)} ` +
      `vs ${fmt(ok(instant?.floor)?.eldP99Ms, 1)} ms)`,
    met: nousEld === undefined || floorEld === undefined ? undefined : nousEld <= floorEld + 20,
  });

  const build = results.coldProcess?.["nous (dist/)"];
  const compiled = results.coldProcess?.nous;
  const cold = build ?? compiled;
  rows.push({
    row: `cold import("nous"), fresh process minus an empty one (${build ? "dist/index.js" : "src/ compiled, no dist/"})`,
    target: "≤ 40 ms",
    measured: cold
      ? `${fmt(cold.diffMs, 1)} ms (${fmt(cold.importMs, 1)} − ${fmt(cold.emptyMs, 1)}; src/ compiled per file: ${fmt(compiled?.diffMs, 1)} ms)`
      : "—",
    met: atMost(cold?.diffMs, 40),
  });

  const updates = ok(results.update.nous);
  for (const variant of VARIANTS) {
    const cells = updates?.filter((cell) => cell.variant === variant) ?? [];
    const smallest = cells.find((cell) => cell.size === SIZES[0])?.perUpdateUs;
    const largest = cells.find((cell) => cell.size === SIZES.at(-1))?.perUpdateUs;
    const worst = cells.length ? Math.max(...cells.map((cell) => cell.perUpdateUs)) : undefined;
    const flat = smallest === undefined || largest === undefined ? undefined : isFlat(smallest, largest);
    rows.push({
      row: `context update through a run (${variant}), state ${SIZES.map((size) => fmt(size)).join(" / ")} items`,
      target: "≤ 5 µs and flat",
      measured: cells.length
        ? `${cells.map((cell) => fmt(cell.perUpdateUs, 1)).join(" / ")} µs (${flat ? "flat" : "grows"})`
        : "—",
      met: allMet([atMost(worst, 5), flat]),
    });
  }

  for (const [name, label, limit] of [
    ["nous+sqlite", "SQLite store, synchronous FULL (group commit)", 1.5],
    ["nous+sqlite-normal", "SQLite store, synchronous NORMAL (group commit)", 1.25],
    ["nous+postgres", "PostgreSQL store (group commit)", undefined],
  ] as const) {
    const plain = runRatio(name, "plain");
    rows.push({
      row: `per step, ${label}`,
      target: limit === undefined ? "report" : `≤ ${limit.toFixed(2)}× floor`,
      measured: `${perStep(name, "plain")}; streaming ${ratio(runRatio(name, "stream"))}`,
      met: limit === undefined ? undefined : atMost(plain, limit),
      reportOnly: limit === undefined && plain !== undefined,
    });
  }

  const resume = ok(results.resume);
  rows.push({
    row: `session of ${fmt(resume?.events ?? 10_000)} events: load from SQLite and carry on (one more run)`,
    target: "≤ 50 ms",
    measured: resume
      ? `${fmt(resume.medianMs, 1)} ms (min ${fmt(resume.minMs, 1)}; the read alone ${fmt(resume.readMs, 1)} ms)`
      : "—",
    met: atMost(resume?.medianMs, 50),
  });
  return rows;
}
