import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent.js";
import { ToolRetriesExceededError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { tool } from "../tools/tool.js";

const ping = tool({ name: "ping", description: "x", input: z.object({}), execute: () => "pong" });
const calling = (names: readonly string[]) => names.map((name) => ({ toolCalls: [{ name }] }));

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
});
