/**
 * Resuming a run whose replayable tool was interrupted between its nested calls, in one process: a
 * store that stops accepting appends right after a nested tool's effect stands in for the crash.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ReplayDivergedError, ToolInDoubtError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { projectDeps } from "../session/projections.js";
import type { NestedCallOutcome } from "../session/run-seam.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { tool } from "../tools/tool.js";
import type { AgentHooks } from "./types.js";

/** A store that fails every append once `crash()` was called, until `recover()`. */
function crashableStore() {
  const inner = new MemoryStore();
  let crashed = false;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return async (sessionId: string, events: readonly SessionEvent[], options: { expectedLastSeq: number }) => {
          if (crashed) throw new Error("simulated crash");
          return target.append(sessionId, events, options);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as SessionStore;
  return {
    store,
    crash: () => {
      crashed = true;
    },
    recover: () => {
      crashed = false;
    },
  };
}

type Plan = { calls: { name: string; args: unknown }[] };

/**
 * An agent whose one model call is `pay` (replayable: its effects are its nested calls), which makes
 * the nested calls `plan.calls` says, one after another, with ids `pay.1`, `pay.2`, …
 */
function payAgent(
  plan: Plan,
  effects: string[],
  crashAfter?: { id: string; crash: () => void },
  hooks: AgentHooks<Record<string, unknown>> = {},
) {
  const charge = tool({
    name: "charge",
    description: "x",
    input: z.object({ amount: z.number() }),
    execute: ({ amount }, context) => {
      effects.push(`charge ${context.toolCallId} ${amount}`);
      if (crashAfter !== undefined && crashAfter.id === context.toolCallId) crashAfter.crash();
      return { result: { charged: amount }, update: ContextUpdate.new().append("charges", amount) };
    },
  });
  const pay = tool({
    name: "pay",
    description: "x",
    input: z.object({}),
    replayable: true,
    execute: async (_args, context) => {
      const outcomes: NestedCallOutcome[] = [];
      for (const [index, call] of plan.calls.entries()) {
        const outcome = await context.seam?.callTool({
          toolName: call.name,
          args: call.args,
          parentToolCallId: context.toolCallId ?? "",
          toolCallId: `${context.toolCallId}.${index + 1}`,
        });
        if (outcome) outcomes.push(outcome);
      }
      return outcomes.map((outcome) => ({ result: outcome.result, replayed: outcome.replayed }));
    },
  });
  const model = new ScriptedModel(
    Array.from(
      { length: 4 },
      () => (request: { messages: readonly { role: string }[] }) =>
        request.messages.some((message) => message.role === "assistant")
          ? { text: "done" }
          : { toolCalls: [{ id: "pay", name: "pay", args: {} }] },
    ),
  );
  return new Agent({ model, tools: [pay, charge], hooks });
}

const charges = (...amounts: number[]): Plan => ({
  calls: amounts.map((amount) => ({ name: "charge", args: { amount } })),
});

/** Runs the plan until the store "crashes" right after the effect of nested call `id`. */
async function crashedSession(plan: Plan, id: string, hooks?: AgentHooks<Record<string, unknown>>) {
  const { store, crash, recover } = crashableStore();
  const effects: string[] = [];
  await expect(payAgent(plan, effects, { id, crash }, hooks).run("go", { sessionId: "s", store })).rejects.toThrow();
  recover();
  return { store, effects };
}

describe("resuming a replayable tool's nested calls", () => {
  it("returns recorded results without running them, and stops at the call in doubt under its own id", async () => {
    const plan = charges(1, 2, 3);
    const { store, effects } = await crashedSession(plan, "pay.2");
    expect(effects).toEqual(["charge pay.1 1", "charge pay.2 2"]);
    const error = await payAgent(plan, effects)
      .resume("s", { store })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolInDoubtError);
    expect((error as ToolInDoubtError).call).toEqual({ toolCallId: "pay.2", toolName: "charge", args: { amount: 2 } });
    expect(effects).toHaveLength(2);

    const asked: unknown[] = [];
    const result = await payAgent(plan, effects).resume("s", {
      store,
      resolveInDoubt: (call) => {
        asked.push(call);
        return { type: "result", result: { charged: 2, settled: true } };
      },
    });
    expect(asked).toEqual([{ toolCallId: "pay.2", toolName: "charge", args: { amount: 2 } }]);
    expect(effects).toEqual(["charge pay.1 1", "charge pay.2 2", "charge pay.3 3"]);
    // The program saw the recorded result of pay.1, the decided one of pay.2 and a fresh one of pay.3.
    const toolMessage = result.messages.find((message) => message.role === "tool") as { result: unknown };
    expect(toolMessage.result).toEqual([
      { result: { charged: 1 }, replayed: true },
      { result: { charged: 2, settled: true }, replayed: false },
      { result: { charged: 3 }, replayed: false },
    ]);
    // pay.1's update was folded once (from the log), the settled pay.2 has none, pay.3's is new.
    expect(result.deps).toEqual({ charges: [1, 3] });
    expect(projectDeps(result.log, {})).toEqual(result.deps);
    const resultsOf = (id: string) =>
      result.log.filter(
        (event) => event.type === "tool_call_result" && (event.data as { toolCallId: string }).toolCallId === id,
      );
    for (const id of ["pay.1", "pay.2", "pay.3"]) expect(resultsOf(id), id).toHaveLength(1);
  });

  it("stops with ReplayDivergedError when the replay makes another call under a recorded id, running nothing", async () => {
    const { store, effects } = await crashedSession(charges(1, 2, 3), "pay.2");
    const error = await payAgent(charges(1, 5, 3), effects)
      .resume("s", { store, resolveInDoubt: () => ({ type: "rerun" }) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplayDivergedError);
    expect(error).toMatchObject({
      code: "replay_diverged",
      toolCallId: "pay.2",
      parentToolCallId: "pay",
      recorded: { toolName: "charge", args: { amount: 2 } },
      replayed: { toolName: "charge", args: { amount: 5 } },
    });
    expect(effects).toEqual(["charge pay.1 1", "charge pay.2 2"]);
    // Another tool under a recorded id diverges too.
    const other = await payAgent({ calls: [{ name: "pay", args: {} }] }, effects)
      .resume("s", { store })
      .catch((caught: unknown) => caught);
    expect(other).toMatchObject({ toolCallId: "pay.1", replayed: { toolName: "pay" } });
  });

  it("stops with ReplayDivergedError when the replay ends without a call the log holds", async () => {
    const { store, effects } = await crashedSession(charges(1, 2, 3), "pay.2");
    const error = await payAgent(charges(1), effects)
      .resume("s", { store, resolveInDoubt: () => ({ type: "rerun" }) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplayDivergedError);
    expect(error).toMatchObject({ toolCallId: "pay.2", recorded: { toolName: "charge" }, replayed: undefined });
    expect(effects).toHaveLength(2);
  });

  it("replays a refused call from the log without recording it again", async () => {
    const plan: Plan = { calls: [{ name: "nope", args: {} }, ...charges(1, 2).calls] };
    const { store, effects } = await crashedSession(plan, "pay.3");
    const result = await payAgent(plan, effects).resume("s", {
      store,
      resolveInDoubt: () => ({ type: "result", result: "settled" }),
    });
    const refused = result.log.filter((event) => event.type === "tool_call_refused");
    expect(refused.map((event) => (event.data as { toolCallId: string }).toolCallId)).toEqual(["pay.1"]);
    const toolMessage = result.messages.find((message) => message.role === "tool") as { result: { result: unknown }[] };
    expect(toolMessage.result[0]?.result).toMatch(/Unknown tool "nope"/);
    expect(effects).toEqual(["charge pay.2 1", "charge pay.3 2"]);
  });

  it("re-runs a call in doubt with the arguments its intent recorded when the resolver says so", async () => {
    const { store, effects } = await crashedSession(charges(1, 2), "pay.2");
    const result = await payAgent(charges(1, 2), effects).resume("s", {
      store,
      resolveInDoubt: () => ({ type: "rerun" }),
    });
    expect(effects).toEqual(["charge pay.1 1", "charge pay.2 2", "charge pay.2 2"]);
    expect(result.deps).toEqual({ charges: [1, 2] });
    const intents = result.log.filter(
      (event) => event.type === "tool_call" && (event.data as { toolCallId: string }).toolCallId === "pay.2",
    );
    expect(intents.map((event) => event.data)).toEqual([
      { toolCallId: "pay.2", toolName: "charge", parentToolCallId: "pay", args: { amount: 2 } },
      { toolCallId: "pay.2", toolName: "charge", parentToolCallId: "pay", args: { amount: 2 }, rerun: true },
    ]);
  });

  it("matches a call a hook changed by its requested arguments, and re-runs it with the decided ones", async () => {
    const tenfold: AgentHooks<Record<string, unknown>> = {
      preToolUse: (call) =>
        call.toolName === "charge"
          ? { type: "modify", args: { amount: (call.args as { amount: number }).amount * 10 } }
          : undefined,
    };
    const { store, effects } = await crashedSession(charges(1, 2), "pay.2", tenfold);
    expect(effects).toEqual(["charge pay.1 10", "charge pay.2 20"]);
    // Resumed without the hook: the replay still matches (by what the program asked for), and the
    // call in doubt runs again with the arguments its intent recorded, not re-decided ones.
    const result = await payAgent(charges(1, 2), effects).resume("s", {
      store,
      resolveInDoubt: (call) => {
        expect(call.args).toEqual({ amount: 20 });
        return { type: "rerun" };
      },
    });
    expect(effects).toEqual(["charge pay.1 10", "charge pay.2 20", "charge pay.2 20"]);
    expect(result.deps).toEqual({ charges: [10, 20] });
  });
});
