import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { StreamTruncatedError } from "../errors/provider-error.js";
import { CancelledError } from "../errors/run-errors.js";
import { MODEL_SPECIFICATION_VERSION, type Model } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { streamChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { isLogEvent } from "./agent-stream-event.js";

const note = tool({
  name: "note",
  description: "save a note",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => ({ result: "saved", update: ContextUpdate.new().append("notes", text) }),
});

describe("agent.stream", () => {
  it("yields every event of the log in seq order, with the deltas where they happened", async () => {
    const model = new ScriptedModel([
      { reasoning: "need a note", toolCalls: [{ id: "c1", name: "note", args: { text: "milk" } }] },
      { text: "Saved your note!" },
    ]);
    const agent = new Agent({ model, tools: [note] });
    const { events, result } = await streamChecked(agent, "remember milk", { deps: { notes: [] }, runId: "r1" });
    const compact = events.map((event) => (event.kind === "event" ? `#${event.seq} ${event.type}` : event));
    expect(compact).toEqual([
      "#1 run_started",
      "#2 user_message",
      "#3 tool_definitions",
      "#4 model_request",
      { kind: "delta", type: "reasoning-delta", text: "need a n" },
      { kind: "delta", type: "reasoning-delta", text: "ote" },
      { kind: "delta", type: "tool-call-start", toolCallId: "c1", toolName: "note" },
      { kind: "delta", type: "tool-call-delta", toolCallId: "c1", argsTextDelta: '{"tex' },
      { kind: "delta", type: "tool-call-delta", toolCallId: "c1", argsTextDelta: 't":"m' },
      { kind: "delta", type: "tool-call-delta", toolCallId: "c1", argsTextDelta: 'ilk"}' },
      { kind: "delta", type: "tool-call-end", toolCallId: "c1", toolName: "note", args: { text: "milk" } },
      "#5 model_response",
      "#6 assistant_message",
      "#7 tool_call",
      "#8 context_update",
      "#9 tool_result",
      "#10 model_request",
      { kind: "delta", type: "text-delta", text: "Saved yo" },
      { kind: "delta", type: "text-delta", text: "ur note!" },
      "#11 model_response",
      "#12 assistant_message",
      "#13 run_completed",
    ]);
    // The log events are the log's own (streamChecked compares them one for one).
    expect(events.filter(isLogEvent).map(({ kind: _kind, ...event }) => event)).toEqual(result.log);
    expect(result.output).toBe("Saved your note!");
    expect(result.deps).toEqual({ notes: ["milk"] });
    const runResult = await new Agent({
      model: new ScriptedModel([
        { reasoning: "need a note", toolCalls: [{ id: "c1", name: "note", args: { text: "milk" } }] },
        { text: "Saved your note!" },
      ]),
      tools: [note],
    }).run("remember milk", { deps: { notes: [] }, runId: "r1" });
    expect(runResult.output).toBe(result.output);
    expect(runResult.deps).toEqual(result.deps);
    expect(runResult.messages).toEqual(result.messages);
  });

  it("a model stream that ends without finish is a typed truncation error and no tool runs", async () => {
    let ran = false;
    const spy = tool({
      name: "spy",
      description: "x",
      input: z.object({}),
      execute: () => {
        ran = true;
      },
    });
    const truncated: Model = {
      specificationVersion: MODEL_SPECIFICATION_VERSION,
      provider: "broken",
      modelId: "m",
      doGenerate: () => Promise.reject(new Error("unused")),
      async *doStream() {
        yield { type: "tool-call-start", toolCallId: "c", toolName: "spy" };
        yield { type: "tool-call-delta", toolCallId: "c", argsTextDelta: "{" };
      },
    };
    const error = await (async () => {
      for await (const _event of new Agent({ model: truncated, tools: [spy] }).stream("go"));
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamTruncatedError);
    expect(ran).toBe(false);
  });
});

describe("cancellation", () => {
  it("an abort mid-run rejects with CancelledError within 100 ms and leaves no listener or timer behind", async () => {
    const controller = new AbortController();
    const hanging = tool({
      name: "hang",
      description: "never finishes on its own",
      input: z.object({}),
      timeoutMs: 60_000,
      execute: () => new Promise(() => {}),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "hang" }] }]);
    const agent = new Agent({ model, tools: [hanging] });
    const timersBefore = process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const run = agent.run("go", { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const abortedAt = performance.now();
    controller.abort(new Error("user pressed stop"));
    const error = await run.catch((caught: unknown) => caught);
    const elapsed = performance.now() - abortedAt;
    expect(error).toBeInstanceOf(CancelledError);
    expect(elapsed).toBeLessThan(100);
    expect((error as CancelledError).log?.at(-1)).toMatchObject({
      type: "run_failed",
      data: { error: { code: "cancelled" } },
    });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    const timersAfter = process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    expect(timersAfter).toBeLessThanOrEqual(timersBefore);
  });

  it("an abort while the model streams stops the stream", async () => {
    const controller = new AbortController();
    let closed = false;
    const slow: Model = {
      specificationVersion: MODEL_SPECIFICATION_VERSION,
      provider: "slow",
      modelId: "m",
      doGenerate: () => Promise.reject(new Error("unused")),
      async *doStream() {
        try {
          yield { type: "text-delta", text: "a" };
          await new Promise(() => {});
        } finally {
          closed = true;
        }
      },
    };
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of new Agent({ model: slow }).stream("go", { signal: controller.signal })) {
        seen.push(event.type);
        if (event.type === "text-delta") controller.abort();
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CancelledError);
    expect(seen).toContain("text-delta");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(closed).toBe(false); // a generator parked in an await cannot be closed; it is released for GC
  });

  it("many model calls on one signal add no lasting listeners", async () => {
    const controller = new AbortController();
    const steps = Array.from({ length: 30 }, () => ({ toolCalls: [{ name: "note", args: { text: "x" } }] }));
    const model = new ScriptedModel([...steps, { text: "done" }]);
    await new Agent({ model, tools: [note], maxIterations: 40 }).run("go", { signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
