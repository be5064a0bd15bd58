import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { tool } from "../tools/tool.js";
import { uiMessagesFromEvents } from "./session-to-ui-messages.js";
import { uiChatHandler } from "./ui-chat-handler.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

function transferTool(ran: number[]) {
  return tool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      ran.push(amount);
      return { moved: amount };
    },
  });
}

/** A POST with the page's assistant message: tool parts in state approval-responded, one per answer. */
function answers(list: readonly { readonly id: string; readonly approved: boolean }[]): Request {
  const parts = list.map(({ id, approved }) => ({
    type: "tool-transfer",
    toolCallId: id,
    state: "approval-responded",
    input: { amount: 5 },
    approval: { id, approved },
  }));
  return post({
    id: "c1",
    trigger: "submit-message",
    messages: [{ id: "a", role: "assistant", parts: [{ type: "step-start" }, ...parts] }],
  });
}

function post(body: unknown): Request {
  const headers = { "content-type": "application/json" };
  return new Request("http://chat.test/api/chat", { method: "POST", headers, body: JSON.stringify(body) });
}

const ask = (text: string) =>
  post({ id: "c1", trigger: "submit-message", messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }] });

async function chunks(response: Response): Promise<UIMessageChunk[]> {
  expect(response.status).toBe(200);
  const frames = (await response.text()).split("\n\n").filter((frame) => frame !== "" && frame !== "data: [DONE]");
  return frames
    .map((frame) => JSON.parse(frame.slice("data: ".length)) as UIMessageChunk)
    .filter((chunk) => chunk.type !== "data-nous-cursor");
}

describe("approvals of nested calls in the UI stream", () => {
  it("a code-mode program's call: a tool part of its own in a step of its own, answered from the page, then its result", async () => {
    const ran: number[] = [];
    const transfer = transferTool(ran);
    const code = "const paid = await tools.transfer({ amount: 5 }); return paid.moved + 1;";
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "prog", name: "run_code", args: { code } }] }, { text: "Paid." }]),
      tools: [transfer, codeMode({ tools: [transfer] })],
    });
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent, store });
    const paused = await chunks(await handle(ask("pay")));
    expect(paused.slice(-5)).toEqual([
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "prog.1", toolName: "transfer", input: { amount: 5 } },
      { type: "tool-approval-request", approvalId: "prog.1", toolCallId: "prog.1" },
      { type: "finish-step" },
      { type: "finish", finishReason: "tool-calls" },
    ]);
    expect(ran).toEqual([]);

    const resumed = await chunks(await handle(answers([{ id: "prog.1", approved: true }])));
    expect(ran).toEqual([5]);
    expect(resumed).toContainEqual({ type: "tool-output-available", toolCallId: "prog.1", output: { moved: 5 } });
    expect(resumed).toContainEqual({ type: "tool-output-available", toolCallId: "prog", output: { result: 6 } });
    expect(resumed.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    // The history rebuilt from the log has the same parts, the nested one answered and done.
    const [, assistant] = uiMessagesFromEvents(await store.read("c1"));
    expect(assistant?.parts).toContainEqual({
      type: "tool-transfer",
      toolCallId: "prog.1",
      state: "output-available",
      input: { amount: 5 },
      output: { moved: 5 },
      approval: { id: "prog.1", approved: true },
    });
  });

  it("a sub-agent's call: answered with the id the stream gave it, recorded in the sub-agent's session, the run resumes", async () => {
    const ran: number[] = [];
    const transfer = transferTool(ran);
    const payer = new Agent({
      name: "payer",
      model: new ScriptedModel([
        { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] },
        { text: "paid" },
      ]),
      tools: [transfer],
    });
    const lead = new Agent({
      name: "lead",
      model: new ScriptedModel([
        { toolCalls: [{ id: "r1", name: "pay", args: { prompt: "pay 5" } }] },
        { text: "Done." },
      ]),
      // A sub-agent may use only tools its parent has.
      tools: [agentAsTool(payer, { name: "pay", description: "Pay" }), transfer],
    });
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent: lead, store });
    const paused = await chunks(await handle(ask("pay")));
    const request = paused.find((chunk) => chunk.type === "tool-approval-request");
    const child = (await store.read("c1")).findLast((event) => event.type === "run_paused")?.data as {
      pending: { sessionId: string }[];
    };
    const id = `${child.pending[0]?.sessionId}/t1`;
    expect(request).toEqual({ type: "tool-approval-request", approvalId: id, toolCallId: id });
    expect(paused).toContainEqual({
      type: "tool-input-available",
      toolCallId: id,
      toolName: "transfer",
      input: { amount: 5 },
    });

    // A forged id is refused, nothing recorded; the real one resumes the whole tree.
    const forged = await handle(answers([{ id: "c1/other/t1", approved: true }]));
    expect(forged.status).toBe(400);
    expect(ran).toEqual([]);
    const resumed = await chunks(await handle(answers([{ id, approved: true }])));
    expect(ran).toEqual([5]);
    expect(
      resumed
        .filter((chunk) => chunk.type === "text-delta")
        .map((chunk) => chunk.delta)
        .join(""),
    ).toBe("Done.");
    const childLog = await store.read(child.pending[0]?.sessionId ?? "");
    expect(childLog.find((event) => event.type === "approval_decided")?.data).toEqual({
      toolCallId: "t1",
      approved: true,
    });
  });

  it("an answer the page sends again for an approval already decided is passed over, not refused", async () => {
    const ran: number[] = [];
    const transfer = transferTool(ran);
    const code =
      "const a = await tools.transfer({ amount: 5 }); const b = await tools.transfer({ amount: 7 }); return [a, b];";
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "prog", name: "run_code", args: { code } }] }, { text: "Both." }]),
      tools: [transfer, codeMode({ tools: [transfer] })],
    });
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent, store });
    await chunks(await handle(ask("pay twice")));
    const second = await chunks(await handle(answers([{ id: "prog.1", approved: true }])));
    expect(second).toContainEqual({ type: "tool-approval-request", approvalId: "prog.2", toolCallId: "prog.2" });
    // The first part stays answered in the page's message; the page sends it again with the new answer.
    const done = await chunks(
      await handle(
        answers([
          { id: "prog.1", approved: true },
          { id: "prog.2", approved: false },
        ]),
      ),
    );
    expect(ran).toEqual([5]);
    expect(done).toContainEqual({ type: "tool-output-denied", toolCallId: "prog.2" });
    expect(done.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    // Only stale answers: refused, as an answer to nothing pending.
    expect((await handle(answers([{ id: "prog.1", approved: true }]))).status).toBe(400);
  });
});
