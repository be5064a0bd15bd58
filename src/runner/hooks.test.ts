import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent.js";
import { ApprovalPendingError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { ToolMessage } from "../session/messages.js";
import { runChecked, types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import type { AgentHooks } from "./types.js";

const calls: unknown[] = [];
const transfer = tool({
  name: "transfer",
  description: "move money",
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  execute: ({ amount }) => {
    calls.push(amount);
    return { moved: amount };
  },
});

function scripted(amount: number) {
  return new ScriptedModel([{ toolCalls: [{ id: "t1", name: "transfer", args: { amount } }] }, { text: "done" }]);
}

function lastToolMessage(model: ScriptedModel): ToolMessage | undefined {
  return model.requests[1]?.messages.filter((message): message is ToolMessage => message.role === "tool").at(-1);
}

describe("hooks", () => {
  it("sessionStart, preRequest, postResponse and sessionEnd run and may replace the request and response", async () => {
    const seen: string[] = [];
    const hooks: AgentHooks<Record<string, unknown>> = {
      sessionStart: ({ runId }) => void seen.push(`start:${runId}`),
      preRequest: (request) => ({ ...request, instructions: "injected" }),
      postResponse: (response) => ({ ...response, content: [{ type: "text", text: "replaced" }] }),
      sessionEnd: ({ output }) => void seen.push(`end:${String(output)}`),
    };
    const model = new ScriptedModel([{ text: "original" }]);
    const result = await runChecked(new Agent({ model, hooks }), "hi", { runId: "r" });
    expect(model.requests[0]?.instructions).toBe("injected");
    expect(result.output).toBe("replaced");
    expect(seen).toEqual(["start:r", "end:replaced"]);
  });

  it("preToolUse can deny with a reason the model sees", async () => {
    calls.length = 0;
    const model = scripted(5);
    const hooks: AgentHooks<Record<string, unknown>> = {
      preToolUse: () => ({ type: "deny", reason: "outside business hours" }),
    };
    await runChecked(new Agent({ model, tools: [transfer], hooks }), "go");
    expect(calls).toEqual([]);
    expect(lastToolMessage(model)).toMatchObject({ isError: true, result: "Tool call denied: outside business hours" });
  });

  it("preToolUse can modify arguments (re-validated) and postToolUse can replace the result", async () => {
    calls.length = 0;
    const model = scripted(5);
    const hooks: AgentHooks<Record<string, unknown>> = {
      preToolUse: (call) => ({ type: "modify", args: { amount: (call.args as { amount: number }).amount * 2 } }),
      postToolUse: (outcome) => ({ result: { ...(outcome.result as object), audited: true } }),
    };
    await runChecked(new Agent({ model, tools: [transfer], hooks }), "go");
    expect(calls).toEqual([10]);
    expect(lastToolMessage(model)).toMatchObject({ isError: false, result: { moved: 10, audited: true } });
  });

  it("an approval handler rejection reaches the model and the tool never runs", async () => {
    calls.length = 0;
    const model = scripted(500);
    const agent = new Agent({
      model,
      tools: [transfer],
      approvalHandler: () => ({ type: "reject", reason: "too much" }),
    });
    const result = await runChecked(agent, "go");
    expect(calls).toEqual([]);
    expect(lastToolMessage(model)).toMatchObject({
      isError: true,
      result: "The user rejected this tool call: too much",
    });
    expect(types(result.log)).toContain("approval_requested");
    expect(result.log.find((event) => event.type === "approval_decided")?.data).toEqual({
      toolCallId: "t1",
      approved: false,
      reason: "too much",
    });
  });

  it("an approval handler can approve or edit the arguments; small amounts need no approval", async () => {
    calls.length = 0;
    let asked = 0;
    const approvalHandler = () => {
      asked += 1;
      return { type: "edit" as const, args: { amount: 150 } };
    };
    await runChecked(new Agent({ model: scripted(500), tools: [transfer], approvalHandler }), "go");
    await runChecked(new Agent({ model: scripted(50), tools: [transfer], approvalHandler }), "go");
    await runChecked(
      new Agent({ model: scripted(200), tools: [transfer], approvalHandler: () => ({ type: "approve" }) }),
      "go",
    );
    expect(calls).toEqual([150, 50, 200]);
    expect(asked).toBe(1);
  });

  it("without an approval handler the run stops with the pending approval in its log", async () => {
    calls.length = 0;
    const error = await new Agent({ model: scripted(500), tools: [transfer] })
      .run("go")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApprovalPendingError);
    const log = (error as ApprovalPendingError).log ?? [];
    expect(types(log).at(-1)).toBe("approval_requested");
    expect((error as ApprovalPendingError).pending).toEqual([
      { toolCallId: "t1", toolName: "transfer", args: { amount: 500 } },
    ]);
    expect(calls).toEqual([]);
  });
});
