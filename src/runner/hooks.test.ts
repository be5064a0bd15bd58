import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ApprovalPendingError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { ToolMessage } from "../session/messages.js";
import { MemoryStore } from "../store/memory-store.js";
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

  it("postToolUse runs only for calls that executed, with parsed arguments", async () => {
    calls.length = 0;
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "unknown", name: "teleport", args: { amount: 1 } },
          { id: "not-json", name: "transfer", args: "{amount:" },
          { id: "bad-schema", name: "transfer", args: { amount: "x" } },
          { id: "denied", name: "transfer", args: { amount: 7 } },
          { id: "rejected", name: "transfer", args: { amount: 500 } },
          { id: "ran", name: "transfer", args: { amount: 5 } },
        ],
      },
      { text: "done" },
    ]);
    const seen: unknown[] = [];
    const hooks: AgentHooks<Record<string, unknown>> = {
      preToolUse: (call) =>
        (call.args as { amount: number }).amount === 7 ? { type: "deny", reason: "lucky number" } : undefined,
      postToolUse: (outcome) => {
        seen.push({ toolCallId: outcome.toolCallId, args: outcome.args, isError: outcome.isError });
        return { result: "replaced by postToolUse" };
      },
    };
    const agent = new Agent({
      model,
      tools: [transfer],
      hooks,
      approvalHandler: () => ({ type: "reject", reason: "too much" }),
    });
    await runChecked(agent, "go");
    expect(calls).toEqual([5]);
    expect(seen).toEqual([{ toolCallId: "ran", args: { amount: 5 }, isError: false }]);
    const results = new Map(
      (model.requests[1]?.messages ?? [])
        .filter((message): message is ToolMessage => message.role === "tool")
        .map((message) => [message.toolCallId, message.result]),
    );
    expect(results.get("ran")).toBe("replaced by postToolUse");
    expect(results.get("unknown")).toMatch(/^Unknown tool "teleport"/);
    expect(results.get("not-json")).toMatch(/^Invalid arguments for tool "transfer"/);
    expect(results.get("bad-schema")).toMatch(/^Invalid arguments for tool "transfer"/);
    expect(results.get("denied")).toBe("Tool call denied: lucky number");
    expect(results.get("rejected")).toBe("The user rejected this tool call: too much");
  });

  it("postToolUse runs only for calls that executed: not for an in-doubt call settled by hand", async () => {
    calls.length = 0;
    const store = new MemoryStore();
    const script = () => scripted(5);
    await new Agent({ model: script(), tools: [transfer] }).run("go", { sessionId: "s", store });
    // The crash: the log ends with the call's intent, as if the process died while it ran.
    const events = await store.read("s");
    const intent = events.findIndex((event) => event.type === "tool_call");
    const crashed = new MemoryStore();
    const kept = events.slice(0, intent + 1).map(({ sessionId: _s, ...event }) => event);
    await crashed.append("s", kept, { expectedLastSeq: 0 });
    const seen: string[] = [];
    const hooks: AgentHooks<Record<string, unknown>> = {
      postToolUse: (outcome) => void seen.push(outcome.toolCallId),
    };
    const resumed = await new Agent({ model: new ScriptedModel([{ text: "done" }]), tools: [transfer], hooks }).resume(
      "s",
      { store: crashed, resolveInDoubt: () => ({ type: "result", result: "settled by hand" }) },
    );
    expect(resumed.output).toBe("done");
    expect(calls).toEqual([5]);
    expect(seen).toEqual([]);
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
    expect(types(log).slice(-2)).toEqual(["approval_requested", "run_paused"]);
    expect((error as ApprovalPendingError).pending).toEqual([
      { toolCallId: "t1", toolName: "transfer", args: { amount: 500 } },
    ]);
    expect(calls).toEqual([]);
  });
});
