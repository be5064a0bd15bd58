/**
 * Two Nous builds side by side against the floor, in one process, on the mock server (in its own
 * process): runs of floor, A and B interleaved (the order rotating), after a long warm-up; prints
 * each one's median run, B − A as the median paired difference per step, and each ratio to the
 * floor. For checking that a change to the library moves the per-step cost, without the noise of
 * separate processes. Usage (each entry a build's index.js, relative to the working directory; keep
 * copies inside the repository so their dependencies resolve, e.g. `cp -r dist .ab/dist-a` before the
 * change; `.ab/` is ignored by git):
 *   node --import tsx peers/ab.ts <entry-A> <entry-B> [runs=400] [plain|stream]
 */
import { fork } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { floor, INSTRUCTIONS, K, MODEL, PROMPT } from "./frameworks.ts";

const [entryA, entryB, runsText = "400", mode = "plain"] = process.argv.slice(2);
if (entryA === undefined || entryB === undefined) throw new Error("usage: ab.ts <entry-A> <entry-B> [runs] [plain|stream]");
const streaming = mode === "stream";

const child = fork(new URL("./mock-server.ts", import.meta.url).pathname, [], {
  execArgv: ["--import", "tsx"],
  stdio: ["ignore", "ignore", "inherit", "ipc"],
});
const baseURL = await new Promise<string>((resolve) => child.once("message", (m: { baseURL: string }) => resolve(m.baseURL)));

async function nous(entry: string): Promise<() => Promise<unknown>> {
  const { Agent, createOpenAICompatibleModel, tool } = (await import(pathToFileURL(resolve(entry)).href)) as typeof import("../../src/index.ts");
  const add = tool({
    name: "add",
    description: "Add two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }: { a: number; b: number }) => a + b,
  });
  const agent = new Agent({
    model: createOpenAICompatibleModel("custom", MODEL, { baseURL }),
    instructions: INSTRUCTIONS,
    tools: [add],
    maxIterations: K + 5,
  });
  if (!streaming) return async () => (await agent.run(PROMPT)).output;
  return async () => {
    const stream = agent.stream(PROMPT);
    for await (const _event of stream);
    return (await stream.result).output;
  };
}

const base = await floor(baseURL);
const subjects: [string, () => Promise<unknown>][] = [
  ["floor", streaming ? () => base.stream() : () => base.run()],
  ["A", await nous(entryA)],
  ["B", await nous(entryB)],
];
const runs = Number(runsText);
for (let i = 0; i < runs; i++) for (const [, one] of subjects) await one();
const times = subjects.map(() => [] as number[]);
for (let i = 0; i < runs; i++) {
  for (let j = 0; j < subjects.length; j++) {
    const index = (i + j) % subjects.length;
    const started = performance.now();
    await subjects[index]![1]();
    times[index]!.push(performance.now() - started);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};
const floorMs = median(times[0]!);
for (const [index, [name]] of subjects.entries()) {
  const ms = median(times[index]!);
  console.log(`${name.padEnd(5)} ${mode} median ${ms.toFixed(3)} ms  ${(ms / floorMs).toFixed(3)}× floor`);
}
const diffs = times[2]!.map((b, i) => b - times[1]![i]!);
console.log(`B − A: ${((median(diffs) * 1000) / (K + 1)).toFixed(1)} µs/step (median paired difference / ${K + 1})`);
child.kill();
process.exit(0);
