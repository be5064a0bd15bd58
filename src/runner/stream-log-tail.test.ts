import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ContextUpdate } from "../context/context-update.js";
import { ApprovalPendingError } from "../errors/index.js";
import { NetworkError } from "../errors/provider-error.js";
import type { Model, ModelStreamPart } from "../models/model.js";
import { ScriptedModel, type ScriptStep } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { MemoryStore } from "../store/memory-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { expectStreamIsLogTail, streamChecked, types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { type AgentStreamEvent, isDelta, isLogEvent } from "./agent-stream-event.js";

const audit = tool({
  name: "audit",
  description: "save a note and audit it",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => ({
    result: "saved",
    update: ContextUpdate.new().append("notes", text).logEvent("audit_note", { text }),
  }),
});

const transfer = tool({
  name: "transfer",
  description: "move money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => ({ result: { moved: amount }, update: ContextUpdate.new().append("moved", amount) }),
});

/** Reads a stream to its end: its events, and how `result` settled. */
async function drain<O, D extends object>(stream: ReturnType<Agent<D, O>["stream"]>) {
  const events: AgentStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const outcome = await stream.result.then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { events, outcome };
}

/** Events as a store keeps them (it adds the session id; JSON drops undefined fields). */
const comparable = (log: readonly SessionEvent[]) =>
  log.map(({ seq, at, type, data }) => JSON.parse(JSON.stringify({ seq, at, type, data })));

/** Script steps for a model that wants a transfer of `amount`, then answers "done". */
const transferScript = (amount: number): ScriptStep[] => [
  { toolCalls: [{ id: "t1", name: "transfer", args: { amount } }] },
  { text: "done" },
];

describe("the stream is the log's live tail", () => {
  it("delivers logEvent records as the log has them, in seq order, between the deltas", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "audit", args: { text: "milk" } }] },
      { text: "Saved." },
    ]);
    const { events, result } = await streamChecked(new Agent({ model, tools: [audit] }), "note milk");
    const logged = events.filter((event) => isLogEvent(event));
    expect(logged.map((event) => event.type)).toEqual(types(result.log));
    expect(logged.find((event) => event.type === "audit_note")?.data).toEqual({ text: "milk" });
    const seqs = logged.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(events.filter(isDelta).length).toBeGreaterThan(0);
  });

  it("with an approval handler: requests and decisions are stream events too", async () => {
    const agent = new Agent({
      model: new ScriptedModel(transferScript(5)),
      tools: [transfer],
      approvalHandler: () => ({ type: "approve" }),
    });
    const { events, result } = await streamChecked(agent, "pay", { deps: {} });
    const streamed = events.filter((event) => isLogEvent(event)).map((event) => event.type);
    expect(streamed).toContain("approval_requested");
    expect(streamed).toContain("approval_decided");
    expect(result.deps).toEqual({ moved: [5] });
  });

  it("a pause ends the stream with run_paused; the log of the store matches; decide, resume, then continue by stream", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([...transferScript(7), { text: "again" }]);
    const agent = new Agent({ model, tools: [transfer] });
    const { events, outcome } = await drain(agent.stream("pay", { sessionId: "s", store, deps: {} }));

    // The stream ended normally, its last event the pause; `result` rejects as `run` would.
    const last = events.at(-1);
    expect(last?.kind === "event" && last.type).toBe("run_paused");
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: unknown }).error).toBeInstanceOf(ApprovalPendingError);
    const pending = [{ toolCallId: "t1", toolName: "transfer", args: { amount: 7 } }];
    expect(last?.kind === "event" ? last.data : undefined).toMatchObject({ pending });
    const stored = await store.read("s");
    expectStreamIsLogTail(events, stored);
    expect(types(stored).slice(-2)).toEqual(["approval_requested", "run_paused"]);
    expect((await store.get("s"))?.status).toBe("awaiting_approval");

    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });
    const resumed = await agent.resume("s", { store, deps: {} });
    expect(resumed.output).toBe("done");
    expect(comparable(resumed.log)).toEqual(comparable(await store.read("s")));
    expect((await store.get("s"))?.status).toBe("completed");

    // The next turn, streamed: its events are what it appended to the stored log.
    const before = (await store.read("s")).length;
    const next = await drain(agent.stream("once more", { sessionId: "s", store, deps: {} }));
    expect(next.outcome.ok).toBe(true);
    expectStreamIsLogTail(next.events, await store.read("s"), before);
  });

  it("a model failing retryably mid-stream: model_stream_reset, and the stream still equals the log", async () => {
    const inner = new ScriptedModel([{ text: "Hello there, friend." }, { text: "Hello there, friend." }]);
    let attempts = 0;
    const flaky: Model = {
      specificationVersion: inner.specificationVersion,
      provider: inner.provider,
      modelId: inner.modelId,
      doGenerate: (request) => inner.doGenerate(request),
      async *doStream(request): AsyncGenerator<ModelStreamPart> {
        attempts += 1;
        let sent = 0;
        for await (const part of inner.doStream(request)) {
          if (attempts === 1 && sent === 2) throw new NetworkError({ provider: "scripted", message: "reset by peer" });
          sent += 1;
          yield part;
        }
      },
    };
    const agent = new Agent({ model: flaky, retry: { initialDelayMs: 1, jitter: 0 } });
    const { events, result } = await streamChecked(agent, "hi");
    expect(result.output).toBe("Hello there, friend.");
    const reset = result.log.find((event) => event.type === "model_stream_reset");
    expect(reset?.data).toMatchObject({
      model: "scripted:script",
      discarded: { text: "Hello there, fri", reasoning: "", toolCalls: [] },
    });
    // The reset sits between the discarded deltas and the new ones.
    const order = events.map((event) => (event.kind === "event" ? event.type : event.type));
    const at = order.indexOf("model_stream_reset");
    expect(order.slice(at - 3, at)).toEqual(["text-delta", "text-delta", "model_retry"]);
    expect(order[at + 1]).toBe("text-delta");
    expect(result.messages.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello there, friend." }],
    });
  });

  it("a sub-agent run: the parent's stream equals the parent's stored log; a child's pause ends it", async () => {
    const store = new MemoryStore();
    const payer = new Agent({ name: "payer", model: new ScriptedModel(transferScript(3)), tools: [transfer] });
    const pay = agentAsTool(payer, { name: "pay", description: "pays" });
    const lead = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "r1", name: "pay", args: { prompt: "pay 3" } }] }, { text: "ok" }]),
      tools: [pay, transfer],
    });
    const { events, outcome } = await drain(lead.stream("go", { sessionId: "root", store }));
    expect((outcome as { error: unknown }).error).toBeInstanceOf(ApprovalPendingError);
    const stored = await store.read("root");
    expectStreamIsLogTail(events, stored);
    expect(types(stored).slice(-2)).toEqual(["subagent_paused", "run_paused"]);
    expect(stored.at(-1)?.data).toMatchObject({ pending: [{ toolCallId: "t1", sessionId: "root/r1" }] });

    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });
    const resumed = await lead.resume("root", { store });
    expect(resumed.output).toBe("ok");
    expect(comparable(resumed.log)).toEqual(comparable(await store.read("root")));
  });

  it("code mode: nested calls, their results and updates reach the stream as logged", async () => {
    const add = tool({
      name: "add",
      description: "add",
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new().append("sums", a + b) }),
    });
    const code = "const x = await tools.add({ a: 1, b: 2 }); return await tools.add({ a: x, b: 3 });";
    const model = new ScriptedModel([{ toolCalls: [{ id: "p", name: "run_code", args: { code } }] }, { text: "6" }]);
    const store = new MemoryStore();
    const agent = new Agent({ model, tools: [add, codeMode({ tools: [add] })] });
    const { events, outcome } = await drain(agent.stream("sum", { sessionId: "code", store }));
    expect(outcome.ok).toBe(true);
    const stored = await store.read("code");
    expectStreamIsLogTail(events, stored);
    const nested = stored.filter((event: SessionEvent) => event.type === "tool_call_result");
    expect(nested).toHaveLength(2);
  });
});
