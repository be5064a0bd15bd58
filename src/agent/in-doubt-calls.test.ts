import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ContextUpdate } from "../context/context-update.js";
import { FunctionModel } from "../models/function-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";
import { inDoubtCalls } from "./in-doubt-calls.js";

const charge = tool({
  name: "charge",
  description: "Charge a card",
  input: z.object({ amount: z.number() }),
  execute: ({ amount }) => ({ result: { charged: amount }, update: ContextUpdate.new().append("charges", amount) }),
});
const lookup = tool({
  name: "lookup",
  description: "Read a price",
  input: z.object({}),
  idempotent: true,
  execute: () => 5,
});

const model = () =>
  new FunctionModel((request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "done" }
      : {
          toolCalls: [
            { id: "p", name: "lookup", args: {} },
            { id: "c", name: "charge", args: { amount: 5 } },
          ],
        },
  );

describe("inDoubtCalls: the calls a resume needs a decision for", () => {
  it("lists a started call without result of a tool that is not idempotent, with its recorded arguments; not an idempotent one, nor one whose update is recorded", async () => {
    const store = new MemoryStore();
    const agent = new Agent({ name: "shop", model: model(), tools: [lookup, charge], parallelToolCalls: true });
    await agent.run("buy", { sessionId: "s", store });
    const events = await store.read("s");
    expect(inDoubtCalls(events, agent)).toEqual([]);
    const intents = events.filter((event) => event.type === "tool_call").map((event) => event.seq);
    const bothStarted = await store.fork("s", { atSeq: Math.max(...intents) });
    expect(inDoubtCalls(await store.read(bothStarted), agent)).toEqual([
      { toolCallId: "c", toolName: "charge", args: { amount: 5 } },
    ]);
    const updated = events.find(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c",
    );
    const torn = await store.fork("s", { atSeq: updated?.seq ?? 0 });
    expect(inDoubtCalls(await store.read(torn), agent)).toEqual([]);
    // Resumed with a decision for each listed call, the run completes without asking again.
    const asked: string[] = [];
    const result = await agent.resume(bothStarted, {
      store,
      resolveInDoubt: (call) => {
        asked.push(call.toolCallId);
        return { type: "result", result: "abandoned", isError: true };
      },
    });
    expect(asked).toEqual(["c"]);
    expect(result.output).toBe("done");
  });

  it("lists the nested calls in doubt of a program that runs again (a replayable tool), not the program itself", async () => {
    const pay = tool({
      name: "pay",
      description: "Pay through nested calls",
      input: z.object({}),
      replayable: true,
      execute: async (_args, context) => {
        const parentToolCallId = context.toolCallId ?? "";
        const call = { toolName: "charge", args: { amount: 7 }, parentToolCallId, toolCallId: `${parentToolCallId}.1` };
        return (await context.seam?.callTool(call))?.result;
      },
    });
    const store = new MemoryStore();
    const payModel = new FunctionModel((request) =>
      request.messages.at(-1)?.role === "tool" ? { text: "paid" } : { toolCalls: [{ id: "p", name: "pay", args: {} }] },
    );
    const agent = new Agent({ name: "payer", model: payModel, tools: [pay, charge] });
    await agent.run("pay", { sessionId: "s", store });
    const events = await store.read("s");
    const nestedIntent = events.find(
      (event) => event.type === "tool_call" && (event.data as { toolCallId?: string }).toolCallId === "p.1",
    );
    const fork = await store.fork("s", { atSeq: nestedIntent?.seq ?? 0 });
    expect(inDoubtCalls(await store.read(fork), agent)).toEqual([
      { toolCallId: "p.1", toolName: "charge", args: { amount: 7 }, parentToolCallId: "p" },
    ]);
  });
});
