/**
 * The runner's own cost per step, with no HTTP: a model that answers instantly (K tool turns, then
 * text). Prints µs per step for run() and stream(), with and without a context update.
 * Run: npx tsx bench/loop-overhead.bench.ts
 *
 * BENCH_ROUNDS=n measures every case n times (cases interleaved) and prints the median per case.
 * NOUS_BENCH_ROOT=<folder> benchmarks another checkout's src/ (and its zod) with this same code:
 * bench/compare.mjs uses it to compare two commits. BENCH_ONLY=<case> runs one case (for profiling).
 * BENCH_CLOCK=cpu measures the process's CPU time (user + system) instead of the wall clock: steadier
 * on a machine shared with other work.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type * as Nous from "../src/index.js";
import type { Model, ModelResponse } from "../src/index.js";
import type * as ScriptedResponse from "../src/models/scripted-response.js";

const root = path.resolve(process.env.NOUS_BENCH_ROOT ?? path.join(import.meta.dirname, ".."));
const fromRoot = (file: string) => pathToFileURL(path.join(root, file)).href;
const { Agent, ContextUpdate, MODEL_SPECIFICATION_VERSION, tool } = (await import(
  fromRoot("src/index.ts")
)) as typeof Nous;
const { streamResponse } = (await import(fromRoot("src/models/scripted-response.ts"))) as typeof ScriptedResponse;
const { z } = (await import(
  pathToFileURL(createRequire(path.join(root, "package.json")).resolve("zod")).href
)) as typeof import("zod");

const K = 10;
const call: ModelResponse = {
  content: [{ type: "tool-call", toolCallId: "c", toolName: "add", argsText: '{"a":1,"b":2}' }],
  usage: { inputTokens: 10, outputTokens: 5 },
  finishReason: "tool-calls",
};
const answer: ModelResponse = {
  content: [{ type: "text", text: "3" }],
  usage: { inputTokens: 10, outputTokens: 1 },
  finishReason: "stop",
};
const instant: Model = {
  specificationVersion: MODEL_SPECIFICATION_VERSION,
  provider: "instant",
  modelId: "k10",
  async doGenerate(request) {
    const tools = request.messages.filter((message) => message.role === "tool").length;
    return tools < K
      ? { ...call, content: [{ ...call.content[0], toolCallId: `c${tools}` } as ModelResponse["content"][0]] }
      : answer;
  },
  async *doStream(request) {
    yield* streamResponse(await this.doGenerate(request));
  },
};
const add = tool({
  name: "add",
  description: "add",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});
const addWithUpdate = tool({
  name: "add",
  description: "add",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new().append("sums", a + b) }),
});

/** The clock, in µs. */
const now =
  process.env.BENCH_CLOCK === "cpu"
    ? () => {
        const { user, system } = process.cpuUsage();
        return user + system;
      }
    : () => performance.now() * 1000;

/** µs per step of `agent`, after a warm-up. */
async function measure(agent: Nous.Agent, streaming: boolean): Promise<number> {
  const once = async () => {
    if (!streaming) return agent.run("go");
    for await (const _event of agent.stream("go"));
  };
  for (let index = 0; index < 300; index++) await once();
  const runs = 2000;
  const start = now();
  for (let index = 0; index < runs; index++) await once();
  return (now() - start) / runs / (K + 1);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

// BENCH_SECRETS=n registers n secrets first (as a provider's API key does), so every event is redacted.
const secretCount = Number(process.env.BENCH_SECRETS ?? 0);
if (secretCount > 0) {
  // A checkout older than redaction has no registry: its figures are those of no secret.
  const registry = (await import(fromRoot("src/redaction/secret-registry.ts")).catch(() => undefined)) as
    | { registerSecret(value: string): void }
    | undefined;
  for (let index = 0; index < secretCount; index++) registry?.registerSecret(`bench-secret-${index}-0123456789`);
}
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const allCases: { label: string; agent: Nous.Agent; streaming: boolean }[] = [
  { label: "run", agent: new Agent({ model: instant, tools: [add], maxIterations: 20 }), streaming: false },
  { label: "stream", agent: new Agent({ model: instant, tools: [add], maxIterations: 20 }), streaming: true },
  {
    label: "run + context update",
    agent: new Agent({ model: instant, tools: [addWithUpdate], maxIterations: 20 }),
    streaming: false,
  },
  {
    label: "run, retry off",
    agent: new Agent({ model: instant, tools: [add], retry: false, maxIterations: 20 }),
    streaming: false,
  },
];
const cases = allCases.filter(({ label }) => process.env.BENCH_ONLY === undefined || label === process.env.BENCH_ONLY);
console.log(
  `Runner cost per step, no HTTP (Node ${process.version}, K=${K}, ${secretCount} secrets registered` +
    `${rounds > 1 ? `, median of ${rounds} rounds` : ""}` +
    `${process.env.BENCH_CLOCK === "cpu" ? ", CPU time" : ""})\n`,
);
console.log("| case                         | µs/step |");
console.log("|------------------------------|--------:|");
const samples = cases.map((): number[] => []);
for (let round = 0; round < rounds; round++) {
  for (const [index, { agent, streaming }] of cases.entries()) samples[index]?.push(await measure(agent, streaming));
}
for (const [index, { label }] of cases.entries()) {
  console.log(
    `| ${label.padEnd(28)} | ${median(samples[index] ?? [])
      .toFixed(1)
      .padStart(8)} |`,
  );
}
