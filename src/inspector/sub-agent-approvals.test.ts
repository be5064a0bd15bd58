/** The inspector with sub-agents: a child's request is decided in the child's session, and the root resumes. */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, ApprovalPendingError, agentAsTool, MemoryStore, tool } from "../index.js";
import { ScriptedModel } from "../testing.js";
import { startInspector } from "./server.js";

const store = new MemoryStore();
afterAll(() => store.close());

function lead(ran: string[], resumed: boolean) {
  const transfer = tool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      ran.push(`transfer ${amount}`);
      return { moved: amount };
    },
  });
  const payerSteps = [{ toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] }, { text: "paid" }];
  const payer = new Agent({
    name: "payer",
    model: new ScriptedModel(payerSteps.slice(resumed ? 1 : 0)),
    tools: [transfer],
  });
  const leadSteps = [{ toolCalls: [{ id: "r1", name: "pay", args: { prompt: "pay" } }] }, { text: "done" }];
  const pay = agentAsTool(payer, { name: "pay", description: "Pay" });
  return new Agent({
    name: "lead",
    model: new ScriptedModel(leadSteps.slice(resumed ? 1 : 0)),
    tools: [pay, transfer],
  });
}

describe("inspector approvals of a sub-agent", () => {
  it("decides a sub-agent's request in the child session and resumes the root session", async () => {
    await expect(lead([], false).run("go", { sessionId: "root", store })).rejects.toThrow(ApprovalPendingError);
    const ran: string[] = [];
    const resumed: string[] = [];
    const inspector = await startInspector({
      store,
      port: 0,
      token: false,
      agent: lead(ran, true),
      resume: async (sessionId) => {
        resumed.push(sessionId);
        await lead(ran, true).resume(sessionId, { store });
      },
    });
    try {
      const base = inspector.url.replace(/\/$/, "");
      const child = encodeURIComponent("root/r1");
      const session = (await (await fetch(`${base}/api/sessions/${child}`)).json()) as {
        pendingApprovals: { toolCallId: string; argsHash: string }[];
      };
      const [approval] = session.pendingApprovals;
      expect(approval?.toolCallId).toBe("t1");
      const decided = await fetch(`${base}/api/sessions/${child}/approvals/t1`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve", argsHash: approval?.argsHash }),
      });
      expect(await decided.json()).toEqual({ decided: "t1", remaining: 0, resumed: true, resumedSession: "root" });
      expect(resumed).toEqual(["root"]);
      await expect.poll(async () => (await store.get("root"))?.status).toBe("completed");
      expect((await store.get("root/r1"))?.status).toBe("completed");
      expect(ran).toEqual(["transfer 5"]);
    } finally {
      await inspector.close();
    }
  });
});
