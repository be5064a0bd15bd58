import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import type { ContextOperation } from "../context/operations.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { AgentContext } from "../session/agent-context.js";
import { runChecked, types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";

/** An agent whose single tool returns the given update, called once by a scripted model. */
function agentReturning<D extends object>(update: ContextUpdate<D>) {
  const apply = tool({
    name: "apply",
    description: "returns an update",
    input: z.object({}),
    execute: () => ({ result: "ok", update }),
  });
  const model = new ScriptedModel([{ toolCalls: [{ name: "apply", args: {} }] }, { text: "done" }]);
  return new Agent<D>({ model, tools: [apply] });
}

describe("context updates through an agent run (the runner folds through toDeps only)", () => {
  it("set replaces a value", async () => {
    const update = ContextUpdate.new<{ count: number }>().set("count", 5);
    const result = await runChecked(agentReturning(update), "go", { deps: { count: 1 } });
    expect(result.deps).toEqual(update.toDeps({ count: 1 }));
    expect(result.deps).toEqual({ count: 5 });
  });

  it("merge deep-merges onto existing nested maps", async () => {
    type Deps = { settings: { theme: { color: string; size: number }; lang: string } };
    const initial: Deps = { settings: { theme: { color: "red", size: 1 }, lang: "en" } };
    const update = ContextUpdate.new<Deps>().merge("settings", { theme: { size: 2 } });
    const result = await runChecked(agentReturning(update), "go", { deps: initial });
    expect(result.deps).toEqual({ settings: { theme: { color: "red", size: 2 }, lang: "en" } });
    expect(result.deps).toEqual(update.toDeps(initial));
    expect(initial.settings.theme.size).toBe(1);
  });

  it("append keeps the existing list and adds to it", async () => {
    const update = ContextUpdate.new<{ items: number[] }>().append("items", 3).append("items", 4);
    const result = await runChecked(agentReturning(update), "go", { deps: { items: [1, 2] } });
    expect(result.deps).toEqual({ items: [1, 2, 3, 4] });
  });

  it("delete removes the key", async () => {
    const update = ContextUpdate.new<{ a?: number; b: number }>().delete("a");
    const result = await runChecked(agentReturning(update), "go", { deps: { a: 1, b: 2 } });
    expect(result.deps).toEqual({ b: 2 });
    expect("a" in result.deps).toBe(false);
  });

  it("log_event records bookkeeping events, in order, after the context_update and before the tool result", async () => {
    const update = ContextUpdate.new<{ n: number }>().logEvent("db_write", { id: 1 }).set("n", 2).logEvent("audit", 2);
    const result = await runChecked(agentReturning(update), "go", { deps: { n: 1 } });
    const expected = update.apply(AgentContext.create({ deps: { n: 1 } }));
    expect(types(result.log)).toEqual([
      "run_started",
      "user_message",
      "tool_definitions",
      "model_request",
      "model_response",
      "assistant_message",
      "tool_call",
      "context_update",
      "db_write",
      "audit",
      "tool_result",
      "model_request",
      "model_response",
      "assistant_message",
      "run_completed",
    ]);
    const recorded = result.log.filter((event) => ["context_update", "db_write", "audit"].includes(event.type));
    expect(recorded.map((event) => [event.type, event.data])).toEqual(
      expected.log.events.map((event) => [
        event.type,
        event.type === "context_update"
          ? { ...(event.data as object), toolCallId: "call_0_0", toolName: "apply" }
          : event.data,
      ]),
    );
    expect(JSON.stringify(result.messages)).not.toContain("db_write");
  });

  it("random tool updates through runs equal toDeps of the concatenated updates", async () => {
    const key = fc.constantFrom("a", "b", "list");
    const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 2 }), fc.constant(null));
    const map = fc.dictionary(fc.constantFrom("x", "y"), leaf, { maxKeys: 2, noNullPrototype: true });
    const operation: fc.Arbitrary<ContextOperation> = fc.oneof(
      fc.record({ op: fc.constant("set" as const), key, value: fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })) }),
      fc.record({ op: fc.constant("merge" as const), key, value: map }),
      fc.record({ op: fc.constant("append" as const), key, item: leaf }),
      fc.record({ op: fc.constant("delete" as const), key }),
      fc.record({ op: fc.constant("log_event" as const), type: fc.constant("audit"), data: leaf }),
    );
    const updates = fc.array(fc.array(operation, { maxLength: 6 }), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(updates, fc.boolean(), async (batches, parallel) => {
        const initial = { list: [0] } as Record<string, unknown>;
        const tools = batches.map((operations, index) =>
          tool({
            name: `t${index}`,
            description: "x",
            input: z.object({}),
            execute: () => ({ result: index, update: ContextUpdate.fromOperations(operations) }),
          }),
        );
        // One turn calling every tool, so parallel and sequential both fold in call order.
        const model = new ScriptedModel([
          { toolCalls: tools.map((item) => ({ name: item.name, args: {} })) },
          { text: "ok" },
        ]);
        const agent = new Agent({ model, tools, parallelToolCalls: parallel });
        const result = await runChecked(agent, "go", { deps: initial });
        // Each update is atomic: a failing one is skipped (and reported to the model), the rest apply in order.
        let expected = initial;
        let allApplied = true;
        for (const operations of batches) {
          try {
            expected = ContextUpdate.fromOperations(operations).toDeps(expected);
          } catch {
            allApplied = false;
          }
        }
        expect(result.deps).toEqual(expected);
        if (allApplied) expect(result.deps).toEqual(ContextUpdate.fromOperations(batches.flat()).toDeps(initial));
        const errors = result.log.filter(
          (event) => event.type === "tool_result" && (event.data as { isError: boolean }).isError,
        );
        expect(errors.length === 0).toBe(allApplied);
      }),
      { numRuns: 300 },
    );
  });
});
