// Prototype of the proposed fix without editing src/: Nous with a provider `fetch` that drops the
// per-call AbortSignal (what scopeSignal would do when the caller passed none), interleaved with
// stock Nous and the floor, non-streaming and streaming.
import { fork } from "node:child_process";
import { floor, K, MODEL, PROMPT } from "./frameworks.ts";
import { Agent, createOpenAICompatibleModel, tool } from "../../src/index.ts";
import { z } from "zod";
const child = fork(new URL("./mock-server.ts", import.meta.url).pathname, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
const baseURL = await new Promise<string>((r) => child.once("message", (m: { baseURL: string }) => r(m.baseURL)));
const add = tool({ name: "add", description: "Add two numbers", input: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
const make = (strip: boolean) => new Agent({
  model: createOpenAICompatibleModel("custom", MODEL, { baseURL, ...(strip ? { fetch: ((url: string, init: RequestInit) => fetch(url, { method: init.method, headers: init.headers, body: init.body })) as typeof fetch } : {}) }),
  instructions: "You add numbers.", tools: [add], maxIterations: K + 5,
});
const stock = make(false), fixed = make(true);
const f = await floor(baseURL);
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
for (const streaming of [false, true]) {
  const runs: Record<string, () => Promise<unknown>> = {
    floor: () => (streaming ? f.stream() : f.run()),
    stock: async () => { if (streaming) { for await (const _ of stock.stream(PROMPT)); } else await stock.run(PROMPT); },
    fixed: async () => { if (streaming) { for await (const _ of fixed.stream(PROMPT)); } else await fixed.run(PROMPT); },
  };
  const times: Record<string, number[]> = { floor: [], stock: [], fixed: [] };
  const names = Object.keys(runs);
  for (let i = 0; i < 30; i++) for (const n of names) await runs[n]!();
  for (let i = 0; i < 150; i++) for (const n of i % 2 ? [...names].reverse() : names) { const t = performance.now(); await runs[n]!(); times[n]!.push(performance.now() - t); }
  const fl = median(times.floor!);
  console.log(`${streaming ? "stream" : "plain "}: floor ${fl.toFixed(2)} ms; stock nous ${median(times.stock!).toFixed(2)} ms (${(median(times.stock!) / fl).toFixed(2)}×); nous without fetch signal ${median(times.fixed!).toFixed(2)} ms (${(median(times.fixed!) / fl).toFixed(2)}×)`);
}
child.kill();
process.exit(0);
