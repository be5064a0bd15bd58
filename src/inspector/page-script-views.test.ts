import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { summarizeEvent } from "../cli/session-timeline.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { tool } from "../tools/tool.js";
import { VIEWS_SCRIPT } from "./page-script-views.js";

type Node = { event: SessionEvent; children: Node[] };
// The page script is plain JavaScript; its functions that touch no DOM run here as they do in the page.
const views = new Function(`${VIEWS_SCRIPT}\nreturn { eventTree, eventSummary, costParts };`)() as {
  eventTree(events: readonly SessionEvent[]): Node[];
  eventSummary(event: SessionEvent): string;
  costParts(detail: unknown): string;
};

const add = tool({
  name: "add",
  description: "x",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new().append("sums", a + b) }),
});

async function codeModeLog(): Promise<readonly SessionEvent[]> {
  const code = "await tools.nope({}).catch(() => null); return await tools.add({ a: 1, b: 2 });";
  const model = new ScriptedModel([
    { toolCalls: [{ id: "prog", name: "run_code", args: { code } }] },
    { text: "done" },
  ]);
  const agent = new Agent({ model, tools: [add, codeMode({ tools: ["add", "nope"] })] });
  return (await agent.run("go")).log;
}

const shape = (nodes: readonly Node[]): unknown[] =>
  nodes.map((node) => {
    const id = (node.event.data as { toolCallId?: string }).toolCallId;
    const label = id === undefined ? node.event.type : `${node.event.type} ${id}`;
    return node.children.length === 0 ? label : { [label]: shape(node.children) };
  });

describe("the inspector's timeline of nested calls", () => {
  it("puts a program's calls under its tool_call, and each call's update and result under its intent", async () => {
    const log = await codeModeLog();
    const program = views.eventTree(log).find((node) => node.event.type === "tool_call");
    expect(shape(program ? [program] : [])).toEqual([
      {
        "tool_call prog": [
          "tool_call_refused prog.1",
          { "tool_call prog.2": ["context_update prog.2", "tool_call_result prog.2"] },
        ],
      },
    ]);
  });

  it("summarizes nested results and refusals in the page and the CLI timeline", async () => {
    const log = await codeModeLog();
    const of = (type: string) => log.find((event) => event.type === type) as SessionEvent;
    expect(views.eventSummary(of("tool_call_result"))).toBe("add: 3 prog.2");
    expect(views.eventSummary(of("tool_call_refused"))).toMatch(/^refused nope\(\{\}\): .*Unknown tool/);
    expect(summarizeEvent(of("tool_call_result"))).toBe("add: 3 (call prog.2)");
    expect(summarizeEvent(of("tool_call_refused"))).toMatch(/^✗ refused nope\(\{\}\) call prog\.1: .*Unknown tool/);
    const nestedIntent = log.find(
      (event) => event.type === "tool_call" && (event.data as { toolCallId: string }).toolCallId === "prog.2",
    ) as SessionEvent;
    expect(summarizeEvent(nestedIntent)).toBe('add({"a":1,"b":2}) call prog.2 in prog');
  });
});

describe("costs on the page", () => {
  it("a model_response shows its recorded cost, and a request its parts", () => {
    const cost = { source: "genai-prices@0.1.8", usd: 0.007, inputUsd: 0.0015, cacheReadUsd: 0.0005, outputUsd: 0.005 };
    const event = {
      seq: 4,
      at: "2026-01-01T00:00:00.000Z",
      type: "model_response",
      data: {
        model: "openai:gpt-4o",
        usage: { inputTokens: 1000, outputTokens: 500, totalTokens: 1500 },
        finishReason: "stop",
        latencyMs: 12,
        cost,
      },
    } as SessionEvent;
    expect(views.eventSummary(event)).toBe("openai:gpt-4o: 1000 in / 500 out, 12 ms, $0.007000");
    expect(summarizeEvent(event)).toBe("stop · 1500 tokens · 12 ms · cost $0.007000");
    expect(views.costParts(cost)).toBe(" (input $0.001500, cache read $0.000500, output $0.005000)");
    expect(views.costParts({ source: "genai-prices@0.1.8" })).toBe("");
  });
});
