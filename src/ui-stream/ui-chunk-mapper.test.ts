import { type UIMessage as AiUIMessage, parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ContextUpdate } from "../context/context-update.js";
import type { AgentStreamEvent } from "../runner/agent-stream-event.js";
import { MemoryStore } from "../store/memory-store.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { uiMessagesFromEvents } from "./session-to-ui-messages.js";
import { toUIMessageStream, toUIMessageStreamResponse, UI_MESSAGE_STREAM_HEADERS } from "./to-ui-message-stream.js";
import { UIChunkMapper } from "./ui-chunk-mapper.js";
import type { UIMessageChunk, UIStreamCursor } from "./ui-message-chunk.js";
import { UIMessageReducer } from "./ui-message-reducer.js";

const note = tool({
  name: "note",
  description: "Remember a note",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => ({
    result: { saved: text },
    update: ContextUpdate.new().append("notes", text).logEvent("audit", { text }),
  }),
});
const transfer = tool({
  name: "transfer",
  description: "Move money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => ({ moved: amount }),
});

async function collect(stream: AsyncIterable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  const units: AgentStreamEvent[] = [];
  for await (const unit of stream) units.push(unit);
  return units;
}

async function chunksOf<T = UIMessageChunk>(stream: ReadableStream<T>): Promise<T[]> {
  const chunks: T[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

/** Consecutive deltas of one part merged: the chunks as they read, whatever the model's split. */
function merged(chunks: readonly UIMessageChunk[]): UIMessageChunk[] {
  const out: UIMessageChunk[] = [];
  for (const chunk of chunks) {
    const last = out.at(-1);
    if (last?.type === chunk.type && (chunk.type === "text-delta" || chunk.type === "reasoning-delta")) {
      const previous = last as typeof chunk;
      if (previous.id === chunk.id) {
        out[out.length - 1] = { ...chunk, delta: previous.delta + chunk.delta };
        continue;
      }
    }
    if (
      chunk.type === "tool-input-delta" &&
      last?.type === "tool-input-delta" &&
      last.toolCallId === chunk.toolCallId
    ) {
      out[out.length - 1] = { ...chunk, inputTextDelta: last.inputTextDelta + chunk.inputTextDelta };
      continue;
    }
    out.push(chunk);
  }
  return out;
}

async function noteRun() {
  const store = new MemoryStore();
  const agent = new Agent({
    model: new ScriptedModel([
      {
        reasoning: "The user wants a note.",
        text: "Saving it.",
        toolCalls: [{ id: "n1", name: "note", args: { text: "milk" } }],
      },
      { text: "Saved your note." },
    ]),
    tools: [note],
  });
  const units = await collect(agent.stream("Note: milk", { sessionId: "s", store }));
  return { store, units };
}

describe("toUIMessageStream", () => {
  it("maps steps, reasoning, text, tool input and output, context updates and custom events, then finish", async () => {
    const { units } = await noteRun();
    const chunks = merged(await chunksOf(toUIMessageStream(units, { cursor: false })));
    expect(chunks).toEqual([
      { type: "start", messageId: "nous-a-2" },
      { type: "start-step" },
      { type: "reasoning-start", id: "r-4-0" },
      { type: "reasoning-delta", id: "r-4-0", delta: "The user wants a note." },
      { type: "reasoning-end", id: "r-4-0" },
      { type: "text-start", id: "t-4-1" },
      { type: "text-delta", id: "t-4-1", delta: "Saving it." },
      { type: "text-end", id: "t-4-1" },
      { type: "tool-input-start", toolCallId: "n1", toolName: "note" },
      { type: "tool-input-delta", toolCallId: "n1", inputTextDelta: '{"text":"milk"}' },
      { type: "tool-input-available", toolCallId: "n1", toolName: "note", input: { text: "milk" } },
      {
        type: "data-nous-context-update",
        id: "ctx-8",
        data: { seq: 8, toolCallId: "n1", operations: [{ op: "append", key: "notes", item: "milk" }] },
      },
      { type: "data-nous-event", data: { seq: 9, type: "audit", data: { text: "milk" } }, transient: true },
      { type: "tool-output-available", toolCallId: "n1", output: { saved: "milk" } },
      { type: "finish-step" },
      { type: "start-step" },
      { type: "text-start", id: "t-11-0" },
      { type: "text-delta", id: "t-11-0", delta: "Saved your note." },
      { type: "text-end", id: "t-11-0" },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop" },
    ]);
  });

  it("maps an approval pause to tool-approval-request and finish, and a rejected call to tool-output-denied", async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] },
        { text: "Not paid." },
      ]),
      tools: [transfer],
    });
    const paused = merged(
      await chunksOf(toUIMessageStream(agent.stream("pay", { sessionId: "p", store }), { cursor: false })),
    );
    expect(paused.slice(-4)).toEqual([
      { type: "tool-input-available", toolCallId: "t1", toolName: "transfer", input: { amount: 5 } },
      { type: "tool-approval-request", approvalId: "t1", toolCallId: "t1" },
      { type: "finish-step" },
      { type: "finish", finishReason: "tool-calls" },
    ]);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "reject", reason: "no" });
    const resumed = toUIMessageStream(agent.resumeStream("p", { store }), {
      cursor: false,
      denied: ["t1"],
      messageId: "m",
    });
    expect(merged(await chunksOf(resumed))).toEqual([
      { type: "start", messageId: "m" },
      { type: "tool-output-denied", toolCallId: "t1" },
      { type: "start-step" },
      { type: "text-start", id: "t-12-0" },
      { type: "text-delta", id: "t-12-0", delta: "Not paid." },
      { type: "text-end", id: "t-12-0" },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop" },
    ]);
    // From the log, the decision itself says the call was denied.
    const [, assistant] = uiMessagesFromEvents(await store.read("p"));
    expect(assistant?.parts.find((part) => part.type === "tool-transfer")).toMatchObject({
      state: "output-denied",
      approval: { id: "t1", approved: false, reason: "no" },
    });
  });

  it("ends a failed run with one error chunk naming the code, and nothing after it", async () => {
    const agent = new Agent({ model: new ScriptedModel([]) });
    const chunks = await chunksOf(toUIMessageStream(agent.stream("hi", { sessionId: "f", store: new MemoryStore() })));
    const errors = chunks.filter((chunk) => chunk.type === "error");
    expect(errors).toEqual([{ type: "error", errorText: expect.stringMatching(/^unexpected_model_call: /) }]);
    expect(chunks.at(-1)).toEqual(errors[0]);
  });

  it("writes SSE the ai package reads: its schema accepts every chunk, and readUIMessageStream builds the message sessionToUIMessages rebuilds", async () => {
    const { store, units } = await noteRun();
    const response = toUIMessageStreamResponse(units);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    expect(headers).toEqual(UI_MESSAGE_STREAM_HEADERS);
    const text = await response.text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text.split("\n\n").every((frame) => frame === "" || frame.startsWith("data: "))).toBe(true);
    const body = new Response(text).body as ReadableStream<Uint8Array>;
    const parsed: UIMessageChunk[] = [];
    for (const result of await chunksOf(parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }))) {
      expect(result.success).toBe(true);
      if (result.success) parsed.push(result.value as UIMessageChunk);
    }
    expect(parsed).toEqual(await chunksOf(toUIMessageStream(units)));
    let message: AiUIMessage | undefined;
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of parsed) controller.enqueue(chunk);
        controller.close();
      },
    });
    for (const state of await chunksOf(readUIMessageStream({ stream, terminateOnError: true }))) message = state;
    const [, fromLog] = uiMessagesFromEvents(await store.read("s"));
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
    const withoutReasoningIds = (parts: readonly unknown[]) =>
      parts.map((part) => {
        const { id: _id, ...rest } = part as { type: string; id?: string };
        return rest.type === "reasoning" ? rest : part;
      });
    expect(withoutReasoningIds(plain(message?.parts) as unknown[])).toEqual(plain(fromLog?.parts));
    expect(message?.id).toBe(fromLog?.id);
  });
});

describe("UIChunkMapper cursors", () => {
  /** What a client holds after `chunks`: its message parts and the last cursor it was sent. */
  function client(chunks: readonly UIMessageChunk[]) {
    const reducer = new UIMessageReducer();
    let cursor: UIStreamCursor | undefined;
    for (const chunk of chunks) {
      if (chunk.type === "data-nous-cursor") cursor = chunk.data;
      reducer.apply(chunk);
    }
    return { reducer, cursor };
  }

  /** Cuts `units` after each of them and resumes from `sources`: the client always ends with `expected` parts. */
  function everyCut(
    units: readonly AgentStreamEvent[],
    sources: readonly (readonly AgentStreamEvent[])[],
    check?: (parts: readonly { type: string }[], had: readonly { type: string }[], where: string) => void,
  ) {
    const all = new UIChunkMapper();
    const expected = client(units.flatMap((unit) => all.map(unit))).reducer.parts;
    let within = 0;
    for (let cut = 0; cut <= units.length; cut++) {
      for (const [index, source] of sources.entries()) {
        const first = new UIChunkMapper();
        const { reducer, cursor } = client(units.slice(0, cut).flatMap((unit) => first.map(unit)));
        if (cursor !== undefined && cursor.part >= 0 && units[cut]?.kind === "delta") within++;
        // Without a cursor the client replays into a fresh message (the Chat's replay on a reload).
        const target = cursor === undefined ? new UIMessageReducer() : reducer;
        const had = target.parts;
        const resumed = new UIChunkMapper(cursor === undefined ? {} : { skip: cursor });
        for (const chunk of source.flatMap((unit) => resumed.map(unit))) target.apply(chunk);
        const where = `cut after ${cut} of ${units.length} units, source ${index}`;
        if (check === undefined) expect(target.parts, where).toEqual(expected);
        else check(target.parts, had, where);
      }
    }
    return { expected, within };
  }

  const texts = (parts: readonly { type: string }[]) =>
    parts.flatMap((part) => ("text" in part && part.type === "text" ? [String(part.text)] : []));

  it("resumes at every cut point, from the live units or from the log alone, with nothing lost or repeated", async () => {
    const { store, units } = await noteRun();
    const logUnits = (await store.read("s")).map((event) => ({ ...event, kind: "event" }) as AgentStreamEvent);
    const { expected, within } = everyCut(units, [units, logUnits]);
    expect(texts(expected)).toEqual(["Saving it.", "Saved your note."]);
    // Cuts inside answers (a part half received) were among them.
    expect(within).toBeGreaterThan(4);
  });

  it("resumes across a stream reset: the discarded start stays closed, the new answer is whole", () => {
    const event = (seq: number, type: string, data: unknown) =>
      ({ kind: "event", seq, at: "", type, data }) as AgentStreamEvent;
    const text = (value: string): AgentStreamEvent => ({ kind: "delta", type: "text-delta", text: value });
    const discarded = { text: "Hel", reasoning: "", toolCalls: [] };
    const head = [
      event(1, "user_message", { content: "hi" }),
      event(2, "model_request", { model: "m", iteration: 0, messageCount: 1 }),
    ];
    const reset = event(3, "model_stream_reset", { model: "m", reason: "retry", discarded });
    const tail = [
      event(4, "model_response", { model: "m", usage: {}, finishReason: "stop", latencyMs: 1 }),
      event(5, "assistant_message", { content: [{ type: "text", text: "Hello" }] }),
      event(6, "run_completed", { runId: "r" }),
    ];
    const units = [...head, text("He"), text("l"), reset, text("Hel"), text("lo"), ...tail];
    // What a reconnect has when the run is live (log events and the deltas since the reset), and from the log alone.
    const live = [...head, reset, text("Hel"), text("lo"), ...tail];
    const { expected } = everyCut(units, [live, [...head, reset, ...tail]], (parts, had, where) => {
      // The client keeps the start it had of the discarded answer (closed), then has the new one whole.
      const final = texts(parts);
      expect(final.at(-1), where).toBe("Hello");
      const kept = final.slice(0, -1);
      expect(kept.length <= 1 && kept.every((value) => value !== "" && "Hel".startsWith(value)), where).toBe(true);
      if (kept.length === 1) expect(texts(had)[0], where).toBe(kept[0]);
      expect(
        parts.filter((part) => part.type === "text").every((part) => (part as { state?: string }).state === "done"),
      ).toBe(true);
    });
    expect(texts(expected)).toEqual(["Hel", "Hello"]);
  });

  it("slices a committed answer's text at the client's character when it resumes from the log", () => {
    const mapper = new UIChunkMapper({ skip: { seq: 4, part: 0, chars: 5 }, messageId: "m" });
    const events: AgentStreamEvent[] = [
      { kind: "event", seq: 4, at: "", type: "model_request", data: { model: "x", iteration: 0, messageCount: 1 } },
      {
        kind: "event",
        seq: 5,
        at: "",
        type: "assistant_message",
        data: { content: [{ type: "text", text: "Hello world" }] },
      },
      { kind: "event", seq: 6, at: "", type: "run_completed", data: { runId: "r" } },
    ];
    expect(events.flatMap((event) => mapper.map(event))).toEqual([
      { type: "start", messageId: "m" },
      { type: "text-delta", id: "t-4-0", delta: " world" },
      { type: "text-end", id: "t-4-0" },
      { type: "data-nous-cursor", data: { seq: 5, part: 0, chars: 11 }, transient: true },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop" },
    ]);
  });
});
