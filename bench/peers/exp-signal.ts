// A/B: does handing fetch an AbortSignal (as Nous's scopeSignal always does) cost time on Node 20?
// Interleaved single requests to the mock server, and bursts of 500 concurrent requests.
import { fork } from "node:child_process";
const child = fork(new URL("./mock-server.ts", import.meta.url).pathname, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
const baseURL = await new Promise<string>((r) => child.once("message", (m: { baseURL: string }) => r(m.baseURL)));
const body = JSON.stringify({ model: "mock-k10", messages: [{ role: "user", content: "hi" }] });
const post = (signal?: AbortSignal) =>
  fetch(`${baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body, signal }).then((r) => r.text());
const plain = () => post();
const signalled = () => post(new AbortController().signal);
const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1]!;
for (let i = 0; i < 300; i++) { await plain(); await signalled(); }
const a: number[] = [], b: number[] = [];
for (let i = 0; i < 2000; i++) {
  let t = performance.now(); await plain(); a.push(performance.now() - t);
  t = performance.now(); await signalled(); b.push(performance.now() - t);
}
console.log(`sequential µs/request: plain ${(median(a) * 1000).toFixed(0)}, with signal ${(median(b) * 1000).toFixed(0)}`);
for (let round = 0; round < 3; round++) for (const [name, fn] of [["plain", plain], ["signal", signalled]] as const) {
  const t = performance.now();
  await Promise.all(Array.from({ length: 500 }, async () => { for (let i = 0; i < 4; i++) await fn(); }));
  console.log(`500 concurrent ${name}: ${(2000 / ((performance.now() - t) / 1000)).toFixed(0)} req/s`);
}
child.kill();
process.exit(0);
