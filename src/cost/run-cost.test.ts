import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { queuedResult } from "../agent/queued-runs.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ApprovalPendingError, CostUnknownError, UsageLimitExceededError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { agentAsTool } from "../sub-agents/sub-agent.js";
import { runChecked, streamChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import type { ModelRates } from "./price-response.js";
import { PRICE_SOURCE } from "./price-source.js";
import { projectRunCost } from "./run-cost.js";
import { sessionCost } from "./session-cost.js";

const ping = tool({ name: "ping", description: "x", input: z.object({}), execute: () => "pong" });
const usage = { inputTokens: 1000, outputTokens: 100 };
/** Negotiated rates for the scripted model: 1000 × 2 + 100 × 8 per million = 0.0028 USD a response. */
const rates: ModelRates = { input: 2, output: 8 };
const PER_RESPONSE = (1000 * 2 + 100 * 8) / 1e6;
const costsOf = (log: readonly { type: string; data: unknown }[]) =>
  log.filter((event) => event.type === "model_response").map((event) => (event.data as { cost?: unknown }).cost);

describe("the cost of a run", () => {
  it("records each response's cost and sums them into result.cost", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "ping" }], usage },
      { text: "done", usage },
    ]);
    const agent = new Agent({ model, tools: [ping], pricing: { "scripted:script": rates } });
    const result = await runChecked(agent, "go");
    const each = { source: "custom", usd: PER_RESPONSE, inputUsd: 0.002, outputUsd: 0.0008 };
    expect(costsOf(result.log)).toEqual([each, each]);
    expect(result.cost).toEqual({ usd: 2 * PER_RESPONSE, partial: false });
  });

  it("a streamed run's model_response carries its cost as the stream delivers it", async () => {
    const model = new ScriptedModel([{ text: "streamed", usage }]);
    const { events, result } = await streamChecked(new Agent({ model, pricing: { script: rates } }), "go");
    const response = events.find((event) => event.type === "model_response") as { data?: { cost?: unknown } };
    expect(response.data?.cost).toEqual({ source: "custom", usd: PER_RESPONSE, inputUsd: 0.002, outputUsd: 0.0008 });
    expect(result.cost).toEqual({ usd: PER_RESPONSE, partial: false });
  });

  it("a model without a price: the source is named, no usd, and the run's cost is partial", async () => {
    const result = await runChecked(new Agent({ model: new ScriptedModel([{ text: "hi", usage }]) }), "go");
    expect(costsOf(result.log)).toEqual([{ source: PRICE_SOURCE }]);
    expect(result.cost).toEqual({ usd: 0, partial: true });
  });

  it("pricing: false records no cost; a pricing function that does not know the model falls back", async () => {
    const off = await new Agent({ model: new ScriptedModel([{ text: "hi", usage }]), pricing: false }).run("go");
    expect(costsOf(off.log)).toEqual([undefined]);
    expect(off.cost).toEqual({ usd: 0, partial: true });
    const asked: string[] = [];
    const model = new ScriptedModel([{ text: "hi", usage }]);
    const fallback = await new Agent({ model, pricing: (name) => void asked.push(name) }).run("go");
    expect(asked).toEqual(["scripted:script"]);
    expect(costsOf(fallback.log)).toEqual([{ source: PRICE_SOURCE }]);
  });

  it("cache and reasoning tokens at the table's own rates, defaulting to input and output", async () => {
    const model = new ScriptedModel([
      {
        text: "hi",
        usage: {
          inputTokens: 1000,
          cachedInputTokens: 600,
          cacheWriteTokens: 100,
          outputTokens: 500,
          reasoningTokens: 200,
        },
      },
    ]);
    const pricing = { script: { input: 4, output: 10, cacheRead: 1, reasoning: 20 } };
    const result = await new Agent({ model, pricing }).run("go");
    // 300 uncached × 4, 600 cached × 1, 100 written × 4 (input rate), 300 answer × 10, 200 reasoning × 20.
    expect(costsOf(result.log)).toEqual([
      {
        source: "custom",
        usd: 0.0012 + 0.0006 + 0.0004 + 0.003 + 0.004,
        inputUsd: 0.0012,
        cacheReadUsd: 0.0006,
        cacheWriteUsd: 0.0004,
        outputUsd: 0.003,
        reasoningUsd: 0.004,
      },
    ]);
  });

  it("includes each sub-agent's cost, as its parent's log reports it", async () => {
    const child = new Agent({
      name: "researcher",
      model: new ScriptedModel([{ text: "milk is white", usage }], { modelId: "child" }),
      pricing: { "scripted:child": { input: 1, output: 1 } },
    });
    const research = agentAsTool(child, { name: "research", description: "Research" });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ id: "r1", name: "research", args: { prompt: "milk?" } }], usage },
      { text: "done", usage },
    ]);
    const lead = new Agent({ model: parentModel, tools: [research], pricing: { "scripted:script": rates } });
    const store = new MemoryStore();
    const result = await runChecked(lead, "go", { sessionId: "lead", store });
    const childCost = 1100 / 1e6;
    expect(result.cost.usd).toBeCloseTo(2 * PER_RESPONSE + childCost, 12);
    expect(result.cost.partial).toBe(false);
    const completed = result.log.find((event) => event.type === "subagent_completed");
    expect((completed?.data as { cost?: unknown }).cost).toEqual({ usd: childCost, partial: false });
    expect(projectRunCost(result.log)).toEqual(result.cost);
    expect(await sessionCost(store, "lead")).toEqual(result.cost);
    // An unpriced child makes the parent's cost partial.
    const unpriced = agentAsTool(new Agent({ model: new ScriptedModel([{ text: "x", usage }]) }), {
      name: "research",
      description: "Research",
    });
    const again = new ScriptedModel([
      { toolCalls: [{ id: "r1", name: "research", args: { prompt: "milk?" } }], usage },
      { text: "done", usage },
    ]);
    const partial = await runChecked(new Agent({ model: again, tools: [unpriced], pricing: { script: rates } }), "go");
    expect(partial.cost).toEqual({ usd: 2 * PER_RESPONSE, partial: true });
  });

  it("a resumed run's cost counts the responses before the pause", async () => {
    const pay = tool({
      name: "pay",
      description: "x",
      input: z.object({}),
      needsApproval: true,
      execute: () => "paid",
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "a", name: "pay" }], usage },
      { text: "paid", usage },
    ]);
    const agent = new Agent({ model, tools: [pay], pricing: { script: rates } });
    const store = new MemoryStore();
    await expect(agent.run("go", { sessionId: "paused", store })).rejects.toBeInstanceOf(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    await decideApproval(store, approval as NonNullable<typeof approval>, { type: "approve" });
    const resumed = await agent.resume("paused", { store });
    expect(resumed.cost).toEqual({ usd: 2 * PER_RESPONSE, partial: false });
  });

  it("a queued run's result, rebuilt from its log, has the cost the run had (sub-agents included)", async () => {
    const child = new Agent({ model: new ScriptedModel([{ text: "x", usage }]), pricing: { script: rates } });
    const research = agentAsTool(child, { name: "research", description: "Research" });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ id: "r1", name: "research", args: { prompt: "milk?" } }], usage },
      { text: "done", usage },
    ]);
    const store = new MemoryStore();
    const lead = new Agent({ model: parentModel, tools: [research], pricing: { script: rates } });
    const result = await lead.run("go", { sessionId: "queued", store });
    expect(result.cost).toEqual({ usd: 3 * PER_RESPONSE, partial: false });
    const rebuilt = queuedResult("queued", { type: "completed", runId: result.runId }, await store.read("queued"));
    expect(rebuilt.cost).toEqual(result.cost);
  });
});

describe("usageLimits.costUsd", () => {
  const loop = (count: number) => Array.from({ length: count }, () => ({ toolCalls: [{ name: "ping" }], usage }));

  it("stops the run once what it spent exceeds the limit", async () => {
    const model = new ScriptedModel(loop(10));
    const agent = new Agent({ model, tools: [ping], pricing: { script: rates } });
    const error = await agent.run("go", { usageLimits: { costUsd: 0.005 } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageLimitExceededError);
    expect(error).toMatchObject({ limit: "costUsd", allowed: 0.005, actual: 2 * PER_RESPONSE, fault: "limit" });
    // 0.0028 after the first response, 0.0056 > 0.005 after the second: its tools never run.
    expect(model.requests).toHaveLength(2);
    const log = (error as UsageLimitExceededError).log ?? [];
    expect(log.filter((event) => event.type === "tool_call")).toHaveLength(1);
    expect(log.at(-1)).toMatchObject({ type: "run_failed", data: { error: { code: "usage_limit_exceeded" } } });
  });

  it("counts a sub-agent's spending: the parent stops before its next request", async () => {
    const child = new Agent({
      model: new ScriptedModel([{ text: "x", usage: { inputTokens: 10_000, outputTokens: 0 } }]),
      pricing: { script: rates },
    });
    const research = agentAsTool(child, { name: "research", description: "Research" });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ id: "r1", name: "research", args: { prompt: "milk?" } }], usage },
      { text: "done", usage },
    ]);
    const lead = new Agent({ model: parentModel, tools: [research], pricing: { script: rates } });
    const error = await lead.run("go", { usageLimits: { costUsd: 0.01 } }).catch((caught: unknown) => caught);
    // 0.0028 of its own, then 0.02 of the child's: 0.0228 > 0.01 before the second request.
    expect(error).toMatchObject({ limit: "costUsd", actual: PER_RESPONSE + 0.02 });
    expect(parentModel.requests).toHaveLength(1);
  });

  it("a response without a price stops the run with CostUnknownError: a limit it cannot check is not kept", async () => {
    const model = new ScriptedModel(loop(3));
    const error = await new Agent({ model, tools: [ping] })
      .run("go", { usageLimits: { costUsd: 100 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CostUnknownError);
    expect(error).toMatchObject({ code: "cost_unknown", fault: "limit", allowed: 100 });
    expect(model.requests).toHaveLength(1);
  });
});
