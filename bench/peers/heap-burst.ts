/**
 * Where the memory of N concurrent runs goes: starts N runs of one framework at once against the
 * mock server (in its own process), takes a heap snapshot while they are in flight, and prints the
 * retained self size by constructor (top 25) next to the heap totals. Usage:
 *   node --expose-gc --import tsx heap-burst.ts nous 500 [stream] [delayMs]
 * Run it for `floor` too and compare. `STRINGS=1` also prints the strings grouped by their first 60
 * characters (which texts a run keeps alive). The snapshot file is deleted afterwards.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { startRunner } from "./in-process-runner.ts";

const [name = "nous", n = "500", mode = "plain", delay = "1500"] = process.argv.slice(2);
const { runner, one, stop } = await startRunner(name, mode);
for (let i = 0; i < 20; i++) await one();
globalThis.gc?.();
const before = process.memoryUsage();
const burst = Promise.all(Array.from({ length: Number(n) }, one));
await new Promise((resolve) => setTimeout(resolve, Number(delay)));
const file = writeHeapSnapshot(join(tmpdir(), `heap-${name}-${process.pid}.heapsnapshot`));
const during = process.memoryUsage();
await burst;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}
const snap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
rmSync(file);
const fields = snap.snapshot.meta.node_fields;
const width = fields.length;
const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((field) => fields.indexOf(field));
const types = snap.snapshot.meta.node_types[0];
const bySize = new Map<string, { bytes: number; count: number }>();
let total = 0;
for (let index = 0; index < snap.nodes.length; index += width) {
  const type = types[snap.nodes[index + typeAt!]!]!;
  const label =
    type === "object" || type === "closure" ? `${type} ${snap.strings[snap.nodes[index + nameAt!]!]}` : `(${type})`;
  const size = snap.nodes[index + sizeAt!]!;
  total += size;
  const entry = bySize.get(label) ?? { bytes: 0, count: 0 };
  entry.bytes += size;
  entry.count++;
  bySize.set(label, entry);
}
if (process.env.STRINGS) {
  const byPrefix = new Map<string, { bytes: number; count: number }>();
  for (let index = 0; index < snap.nodes.length; index += width) {
    if (types[snap.nodes[index + typeAt!]!] !== "string") continue;
    const text = snap.strings[snap.nodes[index + nameAt!]!]!;
    const key = text.slice(0, 60).replace(/\n/g, " ");
    const entry = byPrefix.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += snap.nodes[index + sizeAt!]!;
    entry.count++;
    byPrefix.set(key, entry);
  }
  for (const [key, { bytes, count }] of [...byPrefix].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 25))
    console.log(`${(bytes / 1024).toFixed(0).padStart(8)} KiB ${String(count).padStart(7)}  ${key}`);
}
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
console.log(
  `${name} ${mode} N=${n}, snapshot ${delay} ms into the burst: heap used ${mib(before.heapUsed)} → ${mib(during.heapUsed)} MiB, ` +
    `rss ${mib(before.rss)} → ${mib(during.rss)} MiB; snapshot self sizes ${mib(total)} MiB`,
);
for (const [label, { bytes, count }] of [...bySize].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 25)) {
  console.log(
    `${mib(bytes).padStart(7)} MiB ${String(count).padStart(8)}  ${(bytes / Number(n) / 1024).toFixed(1).padStart(6)} KiB/run  ${label}`,
  );
}
await runner.close?.();
stop();
process.exit(0);
