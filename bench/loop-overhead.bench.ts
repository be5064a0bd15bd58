/**
 * The runner's own cost per step, with no HTTP: a model that answers instantly (K tool turns, then
 * text). Prints µs per step for run() and stream(), with and without a context update.
 * Run: npx tsx bench/loop-overhead.bench.ts
 */
import { z } from "zod";
import {
  Agent,
  ContextUpdate,
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelResponse,
  tool,
} from "../src/index.js";
import { streamResponse } from "../src/models/scripted-response.js";

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

async function measure(label: string, agent: Agent, streaming: boolean): Promise<void> {
  const once = async () => {
    if (!streaming) return agent.run("go");
    for await (const _event of agent.stream("go"));
  };
  for (let index = 0; index < 300; index++) await once();
  const runs = 2000;
  const start = performance.now();
  for (let index = 0; index < runs; index++) await once();
  const perStep = ((performance.now() - start) * 1000) / runs / (K + 1);
  console.log(`| ${label.padEnd(28)} | ${perStep.toFixed(1).padStart(8)} |`);
}

// BENCH_SECRETS=n registers n secrets first (as a provider's API key does), so every event is redacted.
const secretCount = Number(process.env.BENCH_SECRETS ?? 0);
if (secretCount > 0) {
  const { registerSecret } = await import("../src/redaction/secret-registry.js");
  for (let index = 0; index < secretCount; index++) registerSecret(`bench-secret-${index}-0123456789`);
}
console.log(`Runner cost per step, no HTTP (Node ${process.version}, K=${K}, ${secretCount} secrets registered)\n`);
console.log("| case                         | µs/step |");
console.log("|------------------------------|--------:|");
await measure("run", new Agent({ model: instant, tools: [add], maxIterations: 20 }), false);
await measure("stream", new Agent({ model: instant, tools: [add], maxIterations: 20 }), true);
await measure("run + context update", new Agent({ model: instant, tools: [addWithUpdate], maxIterations: 20 }), false);
await measure("run, retry off", new Agent({ model: instant, tools: [add], retry: false, maxIterations: 20 }), false);
