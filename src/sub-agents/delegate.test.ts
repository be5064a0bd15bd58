import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { RunContext } from "../session/run-context.js";
import { MemoryStore } from "../store/memory-store.js";
import { checkProjections, runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { delegate, SubAgentContextError, SubAgentFailedError, SubAgentToolsError } from "./sub-agent.js";
import { dataOf, lastToolResult, lookup, u, usage } from "./test-support/test-fixtures.js";

describe("delegate", () => {
  it("runs children from a hand-written tool, with typed deps, and records both", async () => {
    type ChildDeps = { language: string };
    const translator = new Agent<ChildDeps>({
      name: "translator",
      model: new ScriptedModel([
        { text: "salut", usage: u(1, 1) },
        { text: "bonjour", usage: u(1, 1) },
      ]),
    });
    const compare = tool({
      name: "compare",
      description: "Translate twice",
      input: z.object({ text: z.string() }),
      execute: async ({ text }, context) => {
        const first = await delegate(context, translator, text, { deps: { language: "fr" } });
        const second = await delegate(context, translator, text, { deps: { language: "fr" }, agentName: "again" });
        checkProjections(first.result, { language: "fr" });
        checkProjections(second.result, { language: "fr" });
        return {
          result: [first.output, second.output],
          update: ContextUpdate.fromOperations([...first.update.operations(), ...second.update.operations()]).set(
            "translations",
            2,
          ),
        };
      },
    });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ id: "t1", name: "compare", args: { text: "hello" } }], usage: u(5, 5) },
      { text: "ok", usage: u(5, 5) },
    ]);
    const store = new MemoryStore();
    const lead = new Agent({ model: parentModel, tools: [compare] });
    const result = await runChecked(lead, "go", { sessionId: "d", store });

    expect(result.deps).toEqual({ translations: 2 });
    expect(lastToolResult(parentModel, 1).result).toEqual(["salut", "bonjour"]);
    expect(dataOf(result.log, "subagent_started").map((data) => [data.childSessionId, data.agent])).toEqual([
      ["d/t1", "translator"],
      ["d/t1.2", "again"],
    ]);
    expect((await store.read("d/t1.2")).find((event) => event.type === "run_started")?.data).toMatchObject({
      parentSessionId: "d",
      parentToolCallId: "t1",
    });
    expect(result.usage).toEqual(usage({ requests: 4, input: 12, output: 12, toolCalls: 1 }));
    checkProjections(result, {});
  });

  it("rejects with SubAgentFailedError carrying the child's error, usage and update", async () => {
    const child = new Agent({
      name: "c",
      model: new ScriptedModel([{ toolCalls: [{ name: "lookup", args: { q: "x" } }] }]),
      tools: [lookup],
    });
    let caught: unknown;
    const probe = tool({
      name: "probe",
      description: "x",
      input: z.object({}),
      execute: async (_args, context) => {
        try {
          await delegate(context, child, "go");
        } catch (error) {
          caught = error;
          throw error;
        }
      },
    });
    const parentModel = new ScriptedModel([{ toolCalls: [{ name: "probe" }] }, { text: "ok" }]);
    const result = await runChecked(new Agent({ model: parentModel, tools: [probe] }), "go"); // lookup is not allowed
    expect(caught).toBeInstanceOf(SubAgentFailedError);
    const failed = caught as SubAgentFailedError;
    expect(failed.cause).toBeInstanceOf(SubAgentToolsError);
    expect(failed.childCode).toBe("subagent_tool_not_allowed");
    expect(failed.update.logEvents().map(([type]) => type)).toEqual(["subagent_started", "subagent_failed"]);
    expect(lastToolResult(parentModel, 1).result).toMatch(/Tool "probe" failed: Sub-agent "c" failed/);
    // Let out of the tool, it is a failure that carries its update: the parent's log records it.
    expect(lastToolResult(parentModel, 1)).toMatchObject({ isError: true });
    const recorded = result.log.filter((event) => event.type.startsWith("subagent_"));
    expect(recorded.map((event) => [event.type, (event.data as { toolCallId?: string }).toolCallId])).toEqual([
      ["subagent_started", lastToolResult(parentModel, 1).toolCallId],
      ["subagent_failed", lastToolResult(parentModel, 1).toolCallId],
    ]);
  });

  it("needs a tool context inside a run", async () => {
    const child = new Agent({ model: new ScriptedModel([]) });
    await expect(delegate(RunContext.create({ deps: {} }), child, "x")).rejects.toBeInstanceOf(SubAgentContextError);
  });
});
