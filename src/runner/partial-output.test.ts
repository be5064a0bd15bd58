import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { CancelledError, type NousError } from "../errors/index.js";
import { StreamTruncatedError } from "../errors/provider-error.js";
import { MODEL_SPECIFICATION_VERSION, type Model, type ModelStreamPart } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { EventDataMap, SessionEvent } from "../session/events.js";
import { projectMessages } from "../session/projections.js";
import { MemoryStore } from "../store/memory-store.js";
import { types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";

/** A model whose stream sends `parts`, then hangs (until the run aborts) or just ends (truncated). */
function cutModel(parts: readonly ModelStreamPart[], then: "hang" | "end"): Model {
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: "cut",
    modelId: "m",
    doGenerate: () => Promise.reject(new Error("unused")),
    async *doStream() {
      yield* parts;
      if (then === "hang") await new Promise(() => {});
    },
  };
}

const partialOf = (log: readonly SessionEvent[]) =>
  log.find((event) => event.type === "partial_response")?.data as EventDataMap["partial_response"] | undefined;

/** Runs a stream to its end, aborting `controller` at the first text delta that contains `at`. */
async function streamUntil(stream: AsyncIterable<AgentStreamEvent>, controller?: AbortController, at?: string) {
  const events: AgentStreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      if (event.kind === "delta" && event.type === "text-delta" && at !== undefined && event.text.includes(at)) {
        controller?.abort(new Error("user pressed stop"));
      }
    }
  } catch (error) {
    return { events, error: error as NousError };
  }
  return { events, error: undefined };
}

describe("partial output", () => {
  it("an aborted streaming run keeps its partial text in the log, never in the messages", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const model = cutModel(
      [
        { type: "reasoning-delta", text: "The user wants" },
        { type: "text-delta", text: "Once upon " },
        { type: "text-delta", text: "a time" },
      ],
      "hang",
    );
    const agent = new Agent({ model });
    const stream = agent.stream("Tell a story", { sessionId: "story", store, signal: controller.signal });
    const { events, error } = await streamUntil(stream, controller, "a time");

    expect(error).toBeInstanceOf(CancelledError);
    await expect(stream.result).rejects.toBeInstanceOf(CancelledError);
    const log = await store.read("story");
    expect(types(log).slice(-2)).toEqual(["partial_response", "run_failed"]);
    expect(partialOf(log)).toEqual({
      model: "cut:m",
      reason: "aborted",
      output: { text: "Once upon a time", reasoning: "The user wants", toolCalls: [] },
    });
    // The stream delivered the record too, before the error.
    expect(events.filter((event) => event.kind === "event").map((event) => event.type)).toEqual(types(log));
    // What the model sees of this session: the prompt, no half answer.
    expect(projectMessages(log)).toEqual([{ role: "user", content: "Tell a story" }]);
    expect(JSON.stringify(projectMessages(log))).not.toContain("Once upon");
  });

  it("a stream cut mid tool call records the call as incomplete; it never runs or reaches the messages", async () => {
    const ran: unknown[] = [];
    const pay = tool({
      name: "pay",
      description: "pays",
      input: z.object({ amount: z.number() }),
      execute: (args) => {
        ran.push(args);
        return "paid";
      },
    });
    const model = cutModel(
      [
        { type: "text-delta", text: "Paying now." },
        { type: "tool-call-start", toolCallId: "c1", toolName: "pay" },
        { type: "tool-call-delta", toolCallId: "c1", argsTextDelta: '{"amount":' },
      ],
      "end",
    );
    const { error, events } = await streamUntil(new Agent({ model, tools: [pay], retry: false }).stream("pay 5"));

    expect(error).toBeInstanceOf(StreamTruncatedError);
    const log = error?.log ?? [];
    expect(partialOf(log)).toEqual({
      model: "cut:m",
      reason: "failed",
      error: {
        code: "provider_stream_truncated",
        name: "StreamTruncatedError",
        message: "cut: the model stream ended without a finish part",
      },
      output: {
        text: "Paying now.",
        reasoning: "",
        toolCalls: [{ toolCallId: "c1", toolName: "pay", argsText: '{"amount":', complete: false }],
      },
    });
    expect(ran).toEqual([]);
    expect(types(log)).not.toContain("tool_call");
    expect(projectMessages(log)).toEqual([{ role: "user", content: "pay 5" }]);
    expect(events.at(-1)).toMatchObject({ kind: "event", type: "run_failed" });
  });

  it("a continuation, a resume and a fork of the session see the messages up to the last complete one", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const first = new Agent({
      model: cutModel([{ type: "text-delta", text: "Paris is the cap" }], "hang"),
    });
    const cut = first.stream("Capital of France?", { sessionId: "geo", store, signal: controller.signal });
    await streamUntil(cut, controller, "cap");
    const log = await store.read("geo");
    const partialSeq = log.find((event) => event.type === "partial_response")?.seq as number;

    // Continue the session with a new prompt: the cut answer is not part of the history.
    const next = new ScriptedModel([{ text: "Berlin." }]);
    const continued = await new Agent({ model: next }).run("And of Germany?", { sessionId: "geo", store });
    expect(continued.output).toBe("Berlin.");
    expect(next.requests[0]?.messages).toEqual([
      { role: "user", content: "Capital of France?" },
      { role: "user", content: "And of Germany?" },
    ]);

    // A fork right after the partial output (before run_failed): its run is unfinished and resumes
    // by asking the model again, from the same messages.
    const forkId = await store.fork("geo", { atSeq: partialSeq, newSessionId: "geo-fork" });
    const again = new ScriptedModel([{ text: "Paris." }]);
    const resumed = await new Agent({ model: again }).resume(forkId, { store });
    expect(resumed.output).toBe("Paris.");
    expect(again.requests[0]?.messages).toEqual([{ role: "user", content: "Capital of France?" }]);
    // The partial output stays in the record (the fork copied it), never in the messages.
    expect(partialOf(resumed.log)?.output.text).toBe("Paris is the cap");
    expect(resumed.messages).toEqual([
      { role: "user", content: "Capital of France?" },
      { role: "assistant", content: [{ type: "text", text: "Paris." }] },
    ]);
  });
});
