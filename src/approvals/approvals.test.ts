import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ApprovalArgumentsError, ApprovalPendingError } from "../errors/index.js";
import { MemoryStore } from "../store/memory-store.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { ApprovalMismatchError, decideApproval, listPendingApprovals } from "./approvals.js";

const transfer = tool({
  name: "transfer",
  description: "Move money",
  input: z.object({ amount: z.number().positive() }),
  needsApproval: true,
  execute: ({ amount }) => ({ moved: amount }),
});

async function pendingTransfer() {
  const store = new MemoryStore();
  const agent = new Agent({
    model: new ScriptedModel([{ toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] }, { text: "done" }]),
    tools: [transfer],
  });
  await expect(agent.run("pay", { sessionId: "pay", store })).rejects.toThrow(ApprovalPendingError);
  const [approval] = await listPendingApprovals(store);
  if (approval === undefined) throw new Error("no pending approval");
  return { store, agent, approval };
}

describe("decideApproval", () => {
  it("validates edited arguments against the tool's schema and refuses an invalid edit, writing nothing", async () => {
    const { store, agent, approval } = await pendingTransfer();
    const before = await store.read("pay");
    for (const options of [{ tool: transfer }, { agent }]) {
      const refusal = await decideApproval(store, approval, { type: "edit", args: { amount: "lots" } }, options).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ApprovalArgumentsError);
      expect((refusal as ApprovalArgumentsError).code).toBe("invalid_approval_arguments");
      expect((refusal as Error).message).toContain('Invalid edited arguments for tool "transfer"');
      expect((refusal as Error).message).toMatch(/amount/);
      await expect(decideApproval(store, approval, { type: "edit", args: { amount: -1 } }, options)).rejects.toThrow(
        ApprovalArgumentsError,
      );
    }
    expect(await store.read("pay")).toEqual(before);
    await expect(
      decideApproval(store, approval, { type: "edit", args: { amount: 1 } }, { tool: { ...transfer, name: "other" } }),
    ).rejects.toThrow(ApprovalMismatchError);

    await decideApproval(store, approval, { type: "edit", args: { amount: 3 } }, { agent });
    const result = await agent.resume("pay", { store });
    expect(result.output).toBe("done");
    const ran = (await store.read("pay")).find((event) => event.type === "tool_result");
    expect(ran?.data).toMatchObject({ toolName: "transfer", result: { moved: 3 } });
  });
});
