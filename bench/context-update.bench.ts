/**
 * Build and fold cost of ContextUpdate: ops/second for chains of 10^3 … 10^6 operations.
 * Run: npm run bench
 */
import { ContextUpdate } from "../src/index.js";

type Deps = { list: number[]; map: Record<string, unknown>; count: number };

function measure(
  label: string,
  count: number,
  build: (update: ContextUpdate<Deps>, index: number) => ContextUpdate<Deps>,
) {
  const initial: Deps = { list: [], map: {}, count: 0 };
  let best = { build: Number.POSITIVE_INFINITY, fold: Number.POSITIVE_INFINITY };
  const repeats = count >= 1_000_000 ? 3 : 5;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const startBuild = performance.now();
    let update = ContextUpdate.new<Deps>();
    for (let index = 0; index < count; index++) update = build(update, index);
    const built = performance.now();
    update.toDeps(initial);
    const folded = performance.now();
    best = { build: Math.min(best.build, built - startBuild), fold: Math.min(best.fold, folded - built) };
  }
  const rate = (ms: number) => Math.round(count / (ms / 1000)).toLocaleString("en-US");
  console.log(
    `| ${label.padEnd(8)} | ${count.toLocaleString("en-US").padStart(9)} | ${best.build.toFixed(1).padStart(8)} | ${rate(best.build).padStart(12)} | ${best.fold.toFixed(1).padStart(8)} | ${rate(best.fold).padStart(12)} |`,
  );
}

console.log(`ContextUpdate on Node ${process.version} (best of several runs)\n`);
console.log("| op       |       ops | build ms |  build ops/s |  fold ms |   fold ops/s |");
console.log("|----------|----------:|---------:|-------------:|---------:|-------------:|");
for (const count of [1_000, 10_000, 100_000, 1_000_000]) {
  measure("append", count, (update, index) => update.append("list", index));
}
for (const count of [1_000, 10_000, 100_000, 1_000_000]) {
  measure("merge", count, (update, index) => update.merge("map", { [`k${index % 100}`]: { n: index } }));
}
for (const count of [1_000, 10_000, 100_000, 1_000_000]) {
  measure("set", count, (update, index) => update.set("count", index));
}
