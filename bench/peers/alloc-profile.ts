/**
 * Bytes allocated per run, Nous against the floor (the adapters of frameworks.ts), with the network
 * taken out: both talk to the mock server's `cannedFetch` (K tool calls, then the answer, every
 * request checked), in process and at once, so the figures do not move with machine load. Uses
 * V8's sampling heap profiler (every object, collected or not). Usage:
 *   node --import tsx peers/alloc-profile.ts [runs] [top]     (NOUS_ENTRY picks the build; default src/)
 * Prints bytes per run for each side, then Nous's allocation sites (bytes per run, top N).
 */
import { frameworks, K } from "./frameworks.ts";
import { cannedFetch } from "./mock-server.ts";

const [runs = "2000", top = "30"] = process.argv.slice(2);
// Both clients call the global fetch at each request: the canned one answers, checked as the server checks.
globalThis.fetch = cannedFetch;
const baseURL = "http://canned.invalid/v1";
const nous = await frameworks.nous!(baseURL);
const floor = await frameworks.floor!(baseURL);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
const { Session } = await import("node:inspector/promises");
const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
async function sampled(run: () => Promise<unknown>): Promise<ProfileNode> {
  for (let i = 0; i < 200; i++) await run();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < Number(runs); i++) await run();
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: ProfileNode } };
  return profile.head;
}
const total = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + total(child), node.selfSize);
const nousHead = await sampled(nous.run);
const floorHead = await sampled(floor.run);
const perRun = (bytes: number) => (bytes / Number(runs)).toFixed(0);
console.log(`bytes allocated per run (K=${K}): nous ${perRun(total(nousHead))}, floor ${perRun(total(floorHead))}`);
const sites = new Map<string, number>();
const walk = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(src|dist|node_modules)\//, "$1/")}:${lineNumber + 1}`;
  sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(nousHead);
for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(perRun(bytes).padStart(8), site);
}
session.disconnect();
