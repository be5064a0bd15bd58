import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { MaxIterationsExceededError, UsageLimitExceededError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { runChecked, types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

const ping = tool({ name: "ping", description: "x", input: z.object({}), execute: () => "pong" });
const loop = (count: number) => Array.from({ length: count }, () => ({ toolCalls: [{ name: "ping" }] }));

describe("limits and the run lifecycle in the log", () => {
  it("records run_started, model_request/model_response with usage and latency, and run_completed", async () => {
    const model = new ScriptedModel([{ text: "hi", usage: { inputTokens: 7, outputTokens: 3 } }]);
    const result = await runChecked(new Agent({ model, name: "greeter" }), "hello", { runId: "run-1" });
    expect(types(result.log)).toEqual([
      "run_started",
      "user_message",
      "model_request",
      "model_response",
      "assistant_message",
      "run_completed",
    ]);
    expect(result.log[0]?.data).toEqual({
      runId: "run-1",
      agent: "greeter",
      agentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      model: "scripted:script",
    });
    const response = result.log[3]?.data as { usage: unknown; latencyMs: number; finishReason: string };
    expect(response.usage).toEqual({ inputTokens: 7, outputTokens: 3 });
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    expect(response.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ requests: 1, inputTokens: 7, outputTokens: 3, totalTokens: 10 });
  });

  it("maxIterations (default 10) ends a looping run with a typed error carrying the log", async () => {
    const model = new ScriptedModel(loop(20));
    const error = await new Agent({ model, tools: [ping] }).run("go").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MaxIterationsExceededError);
    expect(model.requests).toHaveLength(10);
    const log = (error as MaxIterationsExceededError).log ?? [];
    expect(log.at(-1)).toMatchObject({ type: "run_failed", data: { error: { code: "max_iterations_exceeded" } } });
    expect(log.filter((event) => event.type === "tool_result")).toHaveLength(10);
  });

  it.each([
    ["requests", { requests: 2 }, 2],
    ["toolCalls", { toolCalls: 3 }, 4],
    ["inputTokens", { inputTokens: 25 }, 3],
    ["outputTokens", { outputTokens: 1 }, 2],
    ["totalTokens", { totalTokens: 21 }, 2],
  ] as const)("usage limit %s ends the run with UsageLimitExceededError", async (limit, usageLimits, requests) => {
    const model = new ScriptedModel(loop(10));
    const error = await new Agent({ model, tools: [ping] })
      .run("go", { usageLimits })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageLimitExceededError);
    expect(error).toMatchObject({ limit, code: "usage_limit_exceeded", fault: "limit" });
    expect(model.requests).toHaveLength(requests);
    expect((error as UsageLimitExceededError).log?.at(-1)?.type).toBe("run_failed");
  });

  it("instructions may be a function of the run context", async () => {
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = new Agent<{ user: string }>({ model, instructions: (context) => `Greet ${context.deps.user}.` });
    await runChecked(agent, "hi", { deps: { user: "Ada" } });
    expect(model.requests[0]?.instructions).toBe("Greet Ada.");
  });

  it("messageHistory is prepended as surface events", async () => {
    const model = new ScriptedModel([{ text: "ok" }]);
    const result = await runChecked(new Agent({ model }), "and now?", {
      messageHistory: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "noted" },
      ],
    });
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(model.requests[0]?.messages).toHaveLength(3);
  });
});
