import { validateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ApprovalPendingError } from "../errors/index.js";
import { MemoryStore } from "../store/memory-store.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { sessionToUIMessages } from "./session-to-ui-messages.js";

const transfer = tool({
  name: "transfer",
  description: "Move money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => ({ moved: amount }),
});

describe("sessionToUIMessages", () => {
  it("rebuilds each turn as a user and an assistant message, an answered approval not yet resumed as approval-responded", async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      model: new ScriptedModel([{ text: "Hi!" }, { toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] }]),
      tools: [transfer],
    });
    await agent.run("hello", { sessionId: "s", store });
    await expect(agent.run([{ type: "text", text: "pay 5" }], { sessionId: "s", store })).rejects.toThrow(
      ApprovalPendingError,
    );
    const pending = await sessionToUIMessages(store, "s");
    expect(pending.at(-1)?.parts.at(-1)).toEqual({
      type: "tool-transfer",
      toolCallId: "t1",
      state: "approval-requested",
      input: { amount: 5 },
      approval: { id: "t1" },
    });
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    const messages = await sessionToUIMessages(store, "s");
    expect(messages).toEqual([
      { id: "nous-u-2", role: "user", parts: [{ type: "text", text: "hello", state: "done" }] },
      {
        id: "nous-a-2",
        role: "assistant",
        parts: [{ type: "step-start" }, { type: "text", text: "Hi!", state: "done" }],
      },
      { id: "nous-u-9", role: "user", parts: [{ type: "text", text: "pay 5", state: "done" }] },
      {
        id: "nous-a-9",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-transfer",
            toolCallId: "t1",
            state: "approval-responded",
            input: { amount: 5 },
            approval: { id: "t1", approved: true },
          },
        ],
      },
    ]);
    // The ai package accepts them as a Chat's messages.
    await expect(validateUIMessages({ messages })).resolves.toHaveLength(4);
  });
});
