/**
 * What issue 18's exports cost: loading the price data, pricing one response, deriving a session's
 * spans from its log (`planSession`), and mapping a run to the UI message stream.
 * Run: npx tsx bench/observability.bench.ts   (BENCH_EVENTS=n sets the synthetic log's tool turns)
 */
import { performance } from "node:perf_hooks";
import { z } from "zod";
import type { Model, ModelResponse } from "../src/index.js";
import {
  Agent,
  loadPriceSource,
  MemoryStore,
  MODEL_SPECIFICATION_VERSION,
  priceResponse,
  tool,
  toUIMessageStream,
} from "../src/index.js";
import { streamResponse } from "../src/models/scripted-response.js";
import { planSession } from "../src/telemetry/span-builder.js";

const TURNS = Number(process.env.BENCH_EVENTS ?? 500);

function micro(label: string, n: number, body: () => void): void {
  const start = performance.now();
  for (let i = 0; i < n; i++) body();
  const us = ((performance.now() - start) * 1000) / n;
  console.log(`${label.padEnd(52)} ${us.toFixed(2)} µs`);
}

// 1. The price data: its first load (a dynamic import of the bundled data), then one lookup.
const loadStart = performance.now();
await loadPriceSource();
console.log(`${"genai-prices first load".padEnd(52)} ${(performance.now() - loadStart).toFixed(1)} ms`);
const usage = { inputTokens: 1200, outputTokens: 300, cachedInputTokens: 800, reasoningTokens: 100 };
for (const model of ["openai:gpt-4o-2024-08-06", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"]) {
  micro(`price one response (${model})`, 20_000, () => void priceResponse(model, usage));
}
micro("price one response (custom rates)", 200_000, () => {
  priceResponse("acme:private", usage, { pricing: { "acme:private": { input: 1, output: 2 } } });
});

// 2. A run of TURNS tool turns, then spans and UI chunks derived from its log.
const call = (i: number): ModelResponse => ({
  content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "add", argsText: '{"a":1,"b":2}' }],
  usage: { inputTokens: 10, outputTokens: 5 },
  finishReason: "tool-calls",
});
let turn = 0;
const instant: Model = {
  specificationVersion: MODEL_SPECIFICATION_VERSION,
  provider: "bench",
  modelId: "instant",
  async doGenerate() {
    turn += 1;
    return turn <= TURNS
      ? call(turn)
      : {
          content: [{ type: "text", text: "done" }],
          usage: { inputTokens: 10, outputTokens: 1 },
          finishReason: "stop",
        };
  },
  async *doStream(request) {
    yield* streamResponse(await this.doGenerate(request));
  },
};
const agent = new Agent({
  model: instant,
  maxIterations: TURNS + 5,
  tools: [
    tool({
      name: "add",
      description: "add",
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    }),
  ],
});
const store = new MemoryStore();
const result = await agent.run("go", { sessionId: "bench", store });
const events = result.log;
const planStart = performance.now();
const rounds = 20;
let spans = 0;
for (let i = 0; i < rounds; i++) spans = countSpans(planSession("bench", events).runs.map((run) => run.span));
const planMs = (performance.now() - planStart) / rounds;
console.log(
  `${`planSession: ${events.length} events → ${spans} spans`.padEnd(52)} ${planMs.toFixed(2)} ms (${((planMs * 1000) / events.length).toFixed(2)} µs/event)`,
);

turn = 0;
const uiStart = performance.now();
let chunks = 0;
const reader = toUIMessageStream(agent.stream("go", { sessionId: "bench-ui", store })).getReader();
for (;;) {
  const { done } = await reader.read();
  if (done) break;
  chunks += 1;
}
const uiMs = performance.now() - uiStart;
console.log(
  `${`UI stream: run of ${TURNS} tool turns → ${chunks} chunks`.padEnd(52)} ${uiMs.toFixed(1)} ms (whole run)`,
);

function countSpans(nodes: readonly { readonly children: readonly unknown[] }[]): number {
  let n = 0;
  for (const node of nodes) n += 1 + countSpans(node.children as { readonly children: readonly unknown[] }[]);
  return n;
}
