import { context, trace } from "@opentelemetry/api";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { tool } from "../tools/tool.js";
import { exportSessionTrace, openTelemetry } from "./open-telemetry.js";
import { enableContext, memoryTracing, outline, type SpanNode, spanTrees } from "./test-support/tracing.js";

const lookup = tool({
  name: "lookup",
  description: "Look something up",
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
});
const broken = tool({
  name: "broken",
  description: "Always fails",
  input: z.object({}),
  execute: () => {
    throw new Error("the disk is full");
  },
});
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output });
const program = "const a = await tools.lookup({ q: 'a' }); const b = await tools.lookup({ q: 'b' }); return [a, b];";

/**
 * A lead that looks something up and calls a failing tool, runs a program calling lookup twice,
 * delegates to a researcher (which looks something up), and answers; then a second run on the
 * session whose model request fails.
 */
function team(tracing: ReturnType<typeof memoryTracing>) {
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  const now = () => {
    clock += 1000;
    return new Date(clock);
  };
  const researcher = new Agent({
    name: "researcher",
    model: new ScriptedModel([
      { toolCalls: [{ id: "l1", name: "lookup", args: { q: "milk" } }], usage: usage(3, 2) },
      { text: "milk is white", usage: usage(4, 1) },
    ]),
    tools: [lookup],
    now,
  });
  const lead = new Agent({
    name: "lead",
    model: new ScriptedModel(
      [
        {
          toolCalls: [
            { id: "t1", name: "lookup", args: { q: "milk" } },
            { id: "t2", name: "broken", args: {} },
          ],
          usage: { ...usage(10, 5), cachedInputTokens: 4, reasoningTokens: 2 },
        },
        { toolCalls: [{ id: "p1", name: "run_code", args: { code: program } }], usage: usage(12, 6) },
        { toolCalls: [{ id: "r1", name: "research", args: { prompt: "what colour is milk?" } }], usage: usage(14, 7) },
        { text: "done", usage: usage(16, 8) },
        () => {
          throw new Error("the model is down");
        },
      ],
      { modelId: "lead-model" },
    ),
    tools: [
      lookup,
      broken,
      codeMode({ tools: [lookup], limits: { timeMs: 5000 } }),
      agentAsTool(researcher, { name: "research", description: "Research a question" }),
    ],
    telemetry: openTelemetry({ tracer: tracing.tracer }),
    pricing: { "lead-model": { input: 1, output: 2 } },
    now,
  });
  return { lead };
}

const TEAM_OUTLINE = [
  "invoke_agent lead (internal)",
  "  chat lead-model (client)",
  "  execute_tool lookup (internal)",
  "  execute_tool broken (internal) error tool_error",
  "  chat lead-model (client)",
  "  execute_tool run_code (internal)",
  "    execute_tool lookup (internal)",
  "    execute_tool lookup (internal)",
  "  chat lead-model (client)",
  "  execute_tool research (internal)",
  "    invoke_agent researcher (internal)",
  "      chat script (client)",
  "      execute_tool lookup (internal)",
  "      chat script (client)",
  "  chat lead-model (client)",
  "invoke_agent lead (internal) error unexpected_error",
  "  chat lead-model (client) error unexpected_error",
];

beforeAll(() => enableContext());

describe("OpenTelemetry spans derived from the session log", () => {
  let tracing: ReturnType<typeof memoryTracing>;
  beforeEach(() => {
    tracing = memoryTracing();
  });

  it("emits each run's tree live, and exportSessionTrace gives the same trees from the store", async () => {
    const store = new MemoryStore();
    const { lead } = team(tracing);
    const result = await lead.run("go", { sessionId: "s1", store });
    expect(result.output).toBe("done");
    await expect(lead.run("again", { sessionId: "s1", store })).rejects.toThrow("the model is down");

    const live = spanTrees(tracing.exporter.getFinishedSpans());
    expect(outline(live)).toEqual(TEAM_OUTLINE);
    // One trace per run; every span of a run in its trace.
    const traces = new Set(tracing.exporter.getFinishedSpans().map((span) => span.spanContext().traceId));
    expect(traces.size).toBe(2);

    const [first, second] = live as [SpanNode, SpanNode];
    expect(first.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "lead",
      "gen_ai.conversation.id": "s1",
      "gen_ai.provider.name": "scripted",
      "nous.session.id": "s1",
      "nous.run.id": result.runId,
      "nous.seq": 1,
      "nous.agent.hash": lead.identity.hash,
      "nous.run.outcome": "completed",
    });
    const [chat, lookupSpan, brokenSpan, , code, , research] = first.children as SpanNode[];
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "lead-model",
      "gen_ai.response.model": "lead-model",
      "gen_ai.response.finish_reasons": ["tool_call"],
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.usage.cache_read.input_tokens": 4,
      "gen_ai.usage.reasoning.output_tokens": 2,
      // 10 input tokens at $1/M and 5 output at $2/M, as the model_response recorded it.
      "nous.cost.source": "custom",
      "nous.cost.usd": 0.00002,
    });
    expect(lookupSpan?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "t1",
    });
    expect(brokenSpan?.attributes).toMatchObject({ "gen_ai.tool.call.id": "t2", "error.type": "tool_error" });
    expect(code?.children.map((node) => node.attributes["gen_ai.tool.call.id"])).toEqual(["p1.1", "p1.2"]);
    expect(code?.children[0]?.attributes["nous.parent_tool_call.id"]).toBe("p1");
    const child = research?.children[0];
    expect(child?.attributes).toMatchObject({
      "gen_ai.agent.name": "researcher",
      "gen_ai.conversation.id": "s1/r1",
      "nous.run.outcome": "completed",
    });
    // Times are the log's: the run span starts at its run_started and ends at its run_completed.
    const log = await store.read("s1");
    const startedAt = log.find((event) => event.type === "run_started")?.at;
    const completedAt = log.find((event) => event.type === "run_completed")?.at;
    expect(first.start).toBe(Date.parse(startedAt as string));
    expect(first.end).toBe(Date.parse(completedAt as string));
    // The failed run: its request got no answer, the run failed with the error's code.
    expect(second.attributes).toMatchObject({ "nous.run.outcome": "failed", "error.type": "unexpected_error" });
    // No content unless asked for.
    const keys = tracing.exporter.getFinishedSpans().flatMap((span) => Object.keys(span.attributes));
    for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments"]) {
      expect(keys).not.toContain(key);
    }

    const after = memoryTracing();
    const exported = await exportSessionTrace(store, "s1", { tracer: after.tracer });
    expect(exported.spanCount).toBe(TEAM_OUTLINE.length);
    expect(exported.runs.map((run) => run.runId)).toEqual([result.runId, second.attributes["nous.run.id"]]);
    // Span ids aside (the trees hold none), the same spans: names, kinds, statuses, attributes, events, times.
    expect(spanTrees(after.exporter.getFinishedSpans())).toEqual(live);
  });

  it("makes the run's span a child of the span active where run was called", async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      name: "solo",
      model: new ScriptedModel([{ text: "hi" }]),
      telemetry: openTelemetry({ tracer: tracing.tracer }),
    });
    const request = tracing.tracer.startSpan("GET /chat");
    await context.with(trace.setSpan(context.active(), request), () => agent.run("hello", { sessionId: "c", store }));
    request.end();
    const [root] = spanTrees(tracing.exporter.getFinishedSpans());
    expect(outline([root as SpanNode])).toEqual([
      "GET /chat (internal)",
      "  invoke_agent solo (internal)",
      "    chat script (client)",
    ]);
  });
});
