import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { DepthLimitExceededError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { NestedCallOutcome } from "../session/run-seam.js";
import { tool } from "../tools/tool.js";

const add = tool({
  name: "add",
  description: "x",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new().append("sums", a + b) }),
});
const guarded = tool({
  name: "guarded",
  description: "x",
  input: z.object({}),
  needsApproval: true,
  execute: () => "ran",
});

/** A tool that dispatches nested calls through the seam and returns their outcomes. */
const dispatcher = tool({
  name: "dispatch",
  description: "x",
  input: z.object({ calls: z.array(z.object({ name: z.string(), args: z.unknown() })) }),
  execute: async ({ calls }, context) => {
    const outcomes: NestedCallOutcome[] = [];
    for (const [index, call] of calls.entries()) {
      outcomes.push(
        (await context.seam?.callTool({
          toolName: call.name,
          args: call.args,
          parentToolCallId: context.toolCallId ?? "",
          toolCallId: `${context.toolCallId}.${index}`,
          deps: context.deps,
        })) as NestedCallOutcome,
      );
    }
    return outcomes.map((outcome) => ({
      result: outcome.result,
      isError: outcome.isError,
      ops: outcome.update?.operations(),
    }));
  },
});

describe("the run seam", () => {
  it("checks nested calls like direct ones: schema, preToolUse, approval (fail closed), and counts them", async () => {
    const calls = [
      { name: "add", args: { a: 1, b: 2 } },
      { name: "add", args: { a: "x" } },
      { name: "guarded", args: {} },
      { name: "add", args: { a: 5, b: 5 } },
      { name: "nope", args: {} },
    ];
    const model = new ScriptedModel([{ toolCalls: [{ id: "d", name: "dispatch", args: { calls } }] }, { text: "ok" }]);
    const agent = new Agent({
      model,
      tools: [dispatcher, add, guarded],
      hooks: {
        preToolUse: (call) =>
          (call.args as { a?: number }).a === 5 ? { type: "deny", reason: "no fives" } : undefined,
      },
    });
    // Not runChecked: this dispatcher records nothing of its nested calls, so the log shows one tool call fewer.
    const result = await agent.run("go");
    const outcomes = model.requests[1]?.messages.at(-1) as {
      result: { result: unknown; isError: boolean; ops?: unknown }[];
    };
    expect(outcomes.result.map((outcome) => [outcome.result, outcome.isError])).toEqual([
      [3, false],
      [expect.stringMatching(/Invalid arguments for tool "add"/), true],
      [expect.stringMatching(/needs approval/), true],
      ["Tool call denied: no fives", true],
      [expect.stringMatching(/Unknown tool "nope"/), true],
    ]);
    expect(outcomes.result[0]?.ops).toEqual([{ op: "append", key: "sums", item: 3 }]);
    expect(result.usage.toolCalls).toBe(2); // dispatch itself and one nested add that ran
    expect(result.deps).toEqual({}); // nested updates are the caller's to fold and record
  });

  it("enforces the sub-agent depth limit", async () => {
    const leaf = new Agent({ model: new ScriptedModel([]), maxDepth: 1 });
    const nest = tool({
      name: "nest",
      description: "x",
      input: z.object({}),
      execute: async (_args, context) => {
        const seam = context.seam;
        if (!seam) throw new Error("no seam");
        const deeper = { ...seam, depth: seam.depth + 1 };
        await leaf.run("x", { parent: { seam: deeper, toolCallId: context.toolCallId ?? "" } });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "nest" }] }, { text: "ok" }]);
    await new Agent({ model, tools: [nest] }).run("go");
    const message = model.requests[1]?.messages.at(-1) as { result: string };
    expect(message.result).toContain("at most 1 levels");
    await expect(leaf.run("x", { parent: { seam: { depth: 5 } as never, toolCallId: "t" } })).rejects.toThrow(
      DepthLimitExceededError,
    );
  });
});
