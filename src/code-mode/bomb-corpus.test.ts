import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { tool } from "../tools/tool.js";
import { codeMode } from "./code-mode.js";
import { CodeLimitError } from "./errors.js";
import { resolveLimits } from "./limits.js";
import { activeSandboxes, runInSandbox } from "./sandbox.js";
import { bombCorpus, bombLimits } from "./test-support/bomb-corpus.js";
import { inBatches } from "./test-support/harness.js";

const spy = tool({ name: "spy", description: "x", input: { description: "anything" }, execute: () => "ok" });
/** Worker start-up and a busy shared machine: how far past its time limit a bomb may end. */
const slackMs = 2500;

describe("the bomb corpus", () => {
  it(`stops each of ${bombCorpus.length} bombs within its limits, with a typed limit error`, async () => {
    const seen = await inBatches(bombCorpus, 2, async (item) => {
      // a bomb aimed at another limit gets time enough to reach it even on a busy machine
      const limits = resolveLimits({ ...bombLimits, timeMs: item.limits.includes("time") ? 300 : 3000 });
      const started = performance.now();
      const error = await runInSandbox({
        code: item.code,
        toolNames: ["spy"],
        limits,
        onToolCall: async () => ({ ok: true, value: "ok" }),
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const elapsed = performance.now() - started;
      const limit = error instanceof CodeLimitError ? error.limit : String(error);
      return {
        name: item.name,
        limit,
        expected: item.limits,
        ms: Math.round(elapsed),
        allowedMs: limits.timeMs + slackMs,
      };
    });
    if (process.env.NOUS_PRINT_CORPUS) console.log(seen);
    const wrong = seen.filter((item) => !(item.expected as string[]).includes(item.limit) || item.ms > item.allowedMs);
    expect(wrong).toEqual([]);
    console.log(`bomb corpus: ${seen.length} bombs, slowest stopped in ${Math.max(...seen.map((item) => item.ms))} ms`);
    expect(activeSandboxes()).toBe(0);
  }, 120_000);

  it("reports a bomb to the model as run_code's error result, and the run goes on", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "a", name: "run_code", args: { code: "const f = () => f(); f();" } }] },
      { toolCalls: [{ id: "b", name: "run_code", args: { code: "return 40 + 2" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [spy, codeMode({ tools: [spy], limits: bombLimits })] });
    const result = await agent.run("go");
    const toolResults = result.messages.filter((message) => message.role === "tool");
    expect(toolResults).toEqual([
      expect.objectContaining({ isError: true, result: expect.stringMatching(/Code limit "stack" exceeded/) }),
      expect.objectContaining({ isError: false, result: { result: 42 } }),
    ]);
  });
});
