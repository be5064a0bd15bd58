/**
 * Bytes allocated per run, Nous against the floor, with the network taken out: both talk to a canned
 * `fetch` that answers like the mock server (K tool calls, then the answer) at once, so the figures
 * are the client's own and do not move with machine load. Uses V8's sampling heap profiler
 * (every object, collected or not). Usage:
 *   node --import tsx peers/alloc-profile.ts [runs] [top]     (NOUS_ENTRY picks the build; default src/)
 * Prints bytes per run for each side, then Nous's allocation sites (bytes per run, top N).
 */
import { FINAL, INSTRUCTIONS, K, PROMPT } from "./frameworks.ts";

const [runs = "2000", top = "30"] = process.argv.slice(2);
const entry = process.env.NOUS_ENTRY ?? "../../src/index.ts";
const { Agent, createOpenAICompatibleModel, tool } = (await import(entry)) as typeof import("../../src/index.ts");
const { z } = await import("zod");

type Json = Record<string, unknown>;
function answer(body: { model: string; messages: { role: string }[] }): string {
  const done = body.messages.filter((message) => message.role === "tool").length;
  const message =
    done < K
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: `call_${done}`, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
        }
      : { role: "assistant", content: FINAL };
  return JSON.stringify({
    id: "chatcmpl-canned",
    object: "chat.completion",
    created: 1,
    model: body.model,
    choices: [{ index: 0, message, finish_reason: done < K ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
  });
}
/** The part of a `Response` both clients read. */
class CannedResponse {
  readonly ok = true;
  readonly status = 200;
  readonly headers = new Headers({ "content-type": "application/json" });
  constructor(readonly body: string) {}
  async text() {
    return this.body;
  }
  async json() {
    return JSON.parse(this.body) as unknown;
  }
}
const cannedFetch = (async (_url: unknown, init: { body: string }) =>
  new CannedResponse(answer(JSON.parse(init.body)))) as unknown as typeof fetch;

const model = createOpenAICompatibleModel("custom", `mock-k${K}`, { baseURL: "http://canned/v1", fetch: cannedFetch });
const add = tool({
  name: "add",
  description: "Add two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }: { a: number; b: number }) => a + b,
});
const agent = new Agent({ model, instructions: INSTRUCTIONS, tools: [add], maxIterations: K + 5 });
const nous = async () => {
  const result = await agent.run(PROMPT);
  if (result.output !== FINAL) throw new Error(`nous answered ${JSON.stringify(result.output)}`);
};

const tools = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Add two numbers",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
  },
];
/** The floor's loop (as in frameworks.ts), on the canned fetch. */
async function floor() {
  const messages: Json[] = [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: PROMPT },
  ];
  for (let turn = 0; turn < 50; turn++) {
    const response = await cannedFetch("http://canned/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ model: `mock-k${K}`, messages, tools, stream: false }),
    });
    const body = (await response.json()) as {
      choices: { message: { content: string | null; tool_calls?: { id: string; function: { arguments: string } }[] } }[];
    };
    const message = body.choices[0]!.message;
    if (!message.tool_calls) return;
    messages.push({ role: "assistant", content: null, tool_calls: message.tool_calls });
    for (const call of message.tool_calls) {
      const { a, b } = JSON.parse(call.function.arguments) as { a: number; b: number };
      messages.push({ role: "tool", tool_call_id: call.id, content: String(a + b) });
    }
  }
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
const { Session } = await import("node:inspector/promises");
const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
async function sampled(run: () => Promise<void>): Promise<ProfileNode> {
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
const nousHead = await sampled(nous);
const floorHead = await sampled(floor);
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
