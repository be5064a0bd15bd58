/**
 * Cold import as a whole process sees it: wall time of a fresh `node` that imports the entry, minus
 * that of a fresh `node` running the same script with nothing to import (process start, the ESM
 * loader, exit). Round-robin: each round runs the empty process, then every entry (order alternating
 * by round); the figure is the median over rounds of (entry − that round's empty process).
 */
import { spawnSync } from "node:child_process";

export interface ColdProcessCell {
  rounds: number;
  /** Median wall ms of the empty process. */
  emptyMs: number;
  /** Median wall ms of the process importing the entry. */
  importMs: number;
  /** Median over rounds of (importMs − emptyMs). */
  diffMs: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const SCRIPT = "for (const s of JSON.parse(process.env.SPECS)) await import(s);";

function wallMs(cwd: string, specifiers: string[]): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    cwd,
    env: { ...process.env, SPECS: JSON.stringify(specifiers) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const elapsed = performance.now() - started;
  if (child.status !== 0) throw new Error(`cold import of ${specifiers.join(", ")} failed: ${child.stderr}`);
  return elapsed;
}

/** `entries`: name → the specifiers (URLs) it imports. */
export function coldProcess(cwd: string, entries: Record<string, string[]>, rounds: number) {
  const names = Object.keys(entries);
  const empty: number[] = [];
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const diffs: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  wallMs(cwd, []); // the first process pays for a cold disk cache
  for (let round = 0; round < rounds; round++) {
    const base = wallMs(cwd, []);
    empty.push(base);
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const ms = wallMs(cwd, entries[name]!);
      times[name]!.push(ms);
      diffs[name]!.push(ms - base);
    }
  }
  const cells: Record<string, ColdProcessCell> = {};
  for (const name of names) {
    cells[name] = { rounds, emptyMs: median(empty), importMs: median(times[name]!), diffMs: median(diffs[name]!) };
  }
  return cells;
}
