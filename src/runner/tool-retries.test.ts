import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ToolRetriesExceededError, ToolRetryError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { tool } from "../tools/tool.js";

const ping = tool({ name: "ping", description: "x", input: z.object({}), execute: () => "pong" });
const calling = (names: readonly string[]) => names.map((name) => ({ toolCalls: [{ name }] }));

/** A tool that fails when asked to, and says which retry it was on. */
function flakyTool(seen: number[]) {
  return tool({
    name: "flaky",
    description: "x",
    input: z.object({ fail: z.boolean() }),
    retries: 1,
    execute: ({ fail }, context) => {
      seen.push(context.retry);
      if (fail) throw new ToolRetryError("try again");
      return "ok";
    },
  });
}

/** One turn per step: `F` a failing call, `B` a call with invalid arguments, `U` an unknown tool, `.` a success. */
function turns(pattern: string) {
  const steps = [...pattern].map((step) => {
    const args = step === "B" ? { fail: "no" } : { fail: step === "F" };
    return { toolCalls: [{ name: step === "U" ? "teleport" : "flaky", args }] };
  });
  return new ScriptedModel([...steps, { text: "done" }]);
}

describe("tool retry budgets", () => {
  it("calls naming an unknown tool are bounded by a run-wide budget and end in ToolRetriesExceededError", async () => {
    const model = new ScriptedModel(calling(Array.from({ length: 40 }, () => "teleport")));
    const error = await new Agent({ model, tools: [ping], maxIterations: 50 })
      .run("go")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error).toMatchObject({ code: "tool_retries_exceeded", toolName: "teleport", fault: "model" });
    expect((error as Error).message).toMatch(/Unknown tool "teleport"/);
    // The budget is that of a tool (2 retries): the third call ends the run, long before maxIterations.
    expect(model.requests).toHaveLength(3);
    const log = (error as ToolRetriesExceededError).log ?? [];
    expect(log.at(-1)).toMatchObject({ type: "run_failed", data: { error: { code: "tool_retries_exceeded" } } });
  });

  it("calls naming different unknown tools share the one run-wide budget", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "fly" }, { name: "swim" }] },
      ...calling(["dig", "climb", "run"]),
    ]);
    const error = await new Agent({ model, tools: [ping], maxIterations: 50 })
      .run("go")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error).toMatchObject({ toolName: "dig" });
    expect(model.requests).toHaveLength(2);
  });

  it("a tool's retry budget counts consecutive failures: a success resets it", async () => {
    const seen: number[] = [];
    // 30 failures (thrown or invalid arguments) over a long run, never two in a row: the run completes.
    const pattern = "F.B.".repeat(15);
    const result = await new Agent({ model: turns(pattern), tools: [flakyTool(seen)], maxIterations: 100 }).run("go");
    expect(result.output).toBe("done");
    // The tool sees how many failures came right before the call (`context.retry`), not the run's total.
    // Per "F.B." the tool runs for F (0 before it), the first "." (1: the F) and the second "." (1: the B).
    expect(seen).toEqual(Array.from({ length: 15 }, () => [0, 1, 1]).flat());
  });

  it("two failures in a row still exhaust a budget of one retry after any number of successes", async () => {
    const error = await new Agent({ model: turns(`${"F.".repeat(10)}BF.`), tools: [flakyTool([])], maxIterations: 100 })
      .run("go")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error).toMatchObject({ toolName: "flaky" });
    expect((error as Error).message).toMatch(/exceeded its 1 retries; last problem: try again/);
  });

  it("occasional calls naming an unknown tool never exhaust the run-wide budget; three in a row do", async () => {
    const agent = (pattern: string) => new Agent({ model: turns(pattern), tools: [flakyTool([])], maxIterations: 100 });
    const result = await agent("UU.".repeat(10)).run("go");
    expect(result.output).toBe("done");
    const error = await agent(`${"U.".repeat(5)}UUU.`)
      .run("go")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error).toMatchObject({ toolName: "teleport" });
  });
});
