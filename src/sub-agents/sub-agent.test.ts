import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { CancelledError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { runChecked, types } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { usageFromLog } from "./child-usage.js";
import { agentAsTool } from "./sub-agent.js";
import { dataOf, lastToolResult, lookup, u, usage } from "./test-support/test-fixtures.js";

/** A researcher (tool: lookup) run by a lead through `research`; each model's usage is pinned. */
function researchSetup(
  options: { childSteps?: ConstructorParameters<typeof ScriptedModel>[0]; maxIterations?: number } = {},
) {
  const childModel = new ScriptedModel(
    options.childSteps ?? [
      { toolCalls: [{ id: "l1", name: "lookup", args: { q: "milk" } }], usage: u(3, 2) },
      { text: "milk is white", usage: u(4, 1) },
    ],
  );
  const researcher = new Agent({
    name: "researcher",
    model: childModel,
    tools: [lookup],
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
  });
  const research = agentAsTool(researcher, { name: "research", description: "Research a question" });
  const parentModel = new ScriptedModel([
    { toolCalls: [{ id: "r1", name: "research", args: { prompt: "what colour is milk?" } }], usage: u(10, 5) },
    { text: "done", usage: u(20, 5) },
  ]);
  const lead = new Agent({ name: "lead", model: parentModel, tools: [research, lookup] });
  return { childModel, parentModel, lead };
}

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());

describe.each<[string, () => SessionStore]>([
  ["MemoryStore", () => new MemoryStore()],
  ["SqliteStore", () => sqlite],
])("agentAsTool with a %s", (storeName, makeStore) => {
  it("links the parent's and the child's logs and stores both completely", async () => {
    const store = makeStore();
    const sessionId = `lead-${storeName}`;
    const { lead, parentModel, childModel } = researchSetup();
    const result = await runChecked(lead, "go", { sessionId, store });

    expect(result.output).toBe("done");
    expect(lastToolResult(parentModel, 1)).toMatchObject({ toolCallId: "r1", result: "milk is white" });
    expect(childModel.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "what colour is milk?" });

    const childSessionId = `${sessionId}/r1`;
    const [started] = dataOf(result.log, "subagent_started");
    const [completed] = dataOf(result.log, "subagent_completed");
    expect(started).toEqual({
      childSessionId,
      childRunId: expect.any(String),
      agent: "researcher",
      toolCallId: "r1",
      depth: 1,
    });
    expect(completed).toEqual({
      toolCallId: "r1",
      childSessionId,
      childRunId: started?.childRunId,
      usage: usage({ requests: 2, input: 7, output: 3, toolCalls: 1 }),
      // The scripted model has no price: the child's cost is reported, and partial.
      cost: { usd: 0, partial: true },
      output: "milk is white",
    });
    const parentTypes = types(result.log);
    expect(parentTypes.indexOf("subagent_started")).toBeLessThan(parentTypes.indexOf("subagent_completed"));
    expect(parentTypes.indexOf("subagent_completed")).toBeLessThan(parentTypes.lastIndexOf("tool_result"));

    const childLog = await store.read(childSessionId);
    expect(types(childLog)).toEqual([
      "run_started",
      "user_message",
      "tool_definitions",
      "model_request",
      "model_response",
      "assistant_message",
      "tool_call",
      "tool_result",
      "model_request",
      "model_response",
      "assistant_message",
      "run_completed",
    ]);
    expect(childLog[0]?.data).toMatchObject({
      runId: started?.childRunId,
      agent: "researcher",
      parentSessionId: sessionId,
      parentToolCallId: "r1",
      depth: 1,
    });
    expect(childLog.at(-1)?.data).toMatchObject({ output: "milk is white" });
    const parentStored = await store.read(sessionId);
    expect(parentStored.map((event) => [event.seq, event.type, event.data])).toEqual(
      result.log.map((event) => [event.seq, event.type, event.data]),
    );
  });
});

describe("sub-agent usage", () => {
  it("adds every child's usage to the parent's exactly once", async () => {
    const { lead } = researchSetup();
    const result = await runChecked(lead, "go");
    // lead: 2 requests (10+5, 20+5), 1 tool call; researcher: 2 requests (3+2, 4+1), 1 tool call.
    expect(result.usage).toEqual(usage({ requests: 4, input: 37, output: 13, toolCalls: 2 }));
    expect(usageFromLog(result.log, result.runId)).toEqual(result.usage);
    expect(dataOf(result.log, "subagent_started")[0]?.childSessionId).toBeNull(); // no store: no child session
  });

  it("adds what a failed child used, and the parent's model sees the failure as a failed call", async () => {
    const { lead, parentModel } = researchSetup({
      childSteps: [{ toolCalls: [{ id: "l1", name: "lookup", args: { q: "milk" } }], usage: u(3, 2) }],
      maxIterations: 1,
    });
    const result = await runChecked(lead, "go");
    // A failure, reported as one: an error result, with the child's update recorded all the same.
    expect(lastToolResult(parentModel, 1)).toMatchObject({ isError: true });
    expect(lastToolResult(parentModel, 1).result).toMatch(
      /^Tool "research" failed: Sub-agent "researcher" failed \(max_iterations_exceeded\)/,
    );
    const [failed] = dataOf(result.log, "subagent_failed");
    expect(failed).toMatchObject({
      usage: usage({ requests: 1, input: 3, output: 2, toolCalls: 1 }),
      error: { code: "max_iterations_exceeded" },
    });
    expect(result.usage).toEqual(usage({ requests: 3, input: 33, output: 12, toolCalls: 2 }));
    expect(usageFromLog(result.log, result.runId)).toEqual(result.usage);
  });
});

describe("sub-agent depth", () => {
  it("lets a chain nest to maxDepth (3) and tells the deepest parent when it would go deeper", async () => {
    const store = new MemoryStore();
    const models = [0, 1, 2, 3, 4].map(
      (level) =>
        new ScriptedModel([
          { toolCalls: [{ id: `n${level}`, name: "nest", args: { prompt: `level ${level + 1}` } }], usage: u(1, 1) },
          { text: `L${level} done`, usage: u(1, 1) },
        ]),
    );
    let below: Agent | undefined;
    for (let level = 4; level >= 0; level--) {
      const tools = below ? [agentAsTool(below, { name: "nest", description: "Go one level deeper" })] : [];
      below = new Agent({ name: `L${level}`, model: models[level] as ScriptedModel, tools });
    }
    const result = await runChecked(below as Agent, "go", { sessionId: "chain", store });

    expect(result.output).toBe("L0 done");
    expect(models[4]?.requests).toHaveLength(0); // L4 would be depth 4 > 3: never started
    expect(lastToolResult(models[3] as ScriptedModel, 1).result).toMatch(
      /failed \(depth_limit_exceeded\): Sub-agents may nest at most 3 levels deep/,
    );
    for (const level of [0, 1, 2]) {
      expect(lastToolResult(models[level] as ScriptedModel, 1).result).toBe(`L${level + 1} done`);
    }
    const l3Session = "chain/n0/n1/n2";
    const l3Log = await store.read(l3Session);
    expect(l3Log[0]?.data).toMatchObject({
      agent: "L3",
      parentSessionId: "chain/n0/n1",
      parentToolCallId: "n2",
      depth: 3,
    });
    expect(dataOf(l3Log, "subagent_failed")[0]).toMatchObject({ error: { code: "depth_limit_exceeded" } });
    expect(await store.read(`${l3Session}/n3`)).toEqual([]);
    // Four agents ran two requests and one tool call each.
    expect(result.usage).toEqual(usage({ requests: 8, input: 8, output: 8, toolCalls: 4 }));
  });
});

describe("sub-agent tools", () => {
  it("refuses a child with a tool the parent does not allow; the tool never runs", async () => {
    let shellRan = false;
    const shell = tool({
      name: "shell",
      description: "Run a command",
      input: z.object({}),
      execute: () => {
        shellRan = true;
        return "ran";
      },
    });
    const childModel = new ScriptedModel([{ toolCalls: [{ name: "shell" }] }, { text: "x" }]);
    const child = new Agent({ name: "hacker", model: childModel, tools: [shell] });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ id: "h1", name: "hack", args: { prompt: "rm -rf" } }] },
      { text: "refused" },
    ]);
    const lead = new Agent({ model: parentModel, tools: [agentAsTool(child, { name: "hack", description: "x" })] });
    const result = await runChecked(lead, "go");

    expect(shellRan).toBe(false);
    expect(childModel.requests.length).toBeLessThanOrEqual(1);
    expect(lastToolResult(parentModel, 1).result).toMatch(/failed \(subagent_tool_not_allowed\).*not allowed: shell/);
    expect(dataOf(result.log, "subagent_failed")[0]).toMatchObject({ error: { code: "subagent_tool_not_allowed" } });
  });
});

describe("parallel sub-agents", () => {
  it("runs two sub-agents at once under parallelToolCalls and sums their usage", async () => {
    let arrived = 0;
    let release: () => void = () => {};
    const bothThere = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rendezvous = tool({
      name: "rendezvous",
      description: "Wait for the other sub-agent",
      input: z.object({}),
      execute: async () => {
        arrived += 1;
        if (arrived === 2) release();
        const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("not parallel")), 2000));
        await Promise.race([bothThere, timeout]);
        return "met";
      },
    });
    const childAgent = (name: string) =>
      new Agent({
        name,
        model: new ScriptedModel([
          { toolCalls: [{ id: `w_${name}`, name: "rendezvous" }], usage: u(2, 1) },
          { text: `${name} met`, usage: u(3, 1) },
        ]),
        tools: [rendezvous],
      });
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { id: "a1", name: "ask_a", args: { prompt: "go a" } },
          { id: "b1", name: "ask_b", args: { prompt: "go b" } },
        ],
        usage: u(10, 2),
      },
      { text: "both", usage: u(10, 2) },
    ]);
    const store = new MemoryStore();
    const lead = new Agent({
      model: parentModel,
      parallelToolCalls: true,
      tools: [
        agentAsTool(childAgent("a"), { name: "ask_a", description: "x" }),
        agentAsTool(childAgent("b"), { name: "ask_b", description: "x" }),
        rendezvous,
      ],
    });
    const result = await runChecked(lead, "go", { sessionId: "par", store });

    const messages = parentModel.requests[1]?.messages.slice(-2);
    expect(messages).toMatchObject([
      { toolCallId: "a1", result: "a met" },
      { toolCallId: "b1", result: "b met" },
    ]);
    expect(dataOf(result.log, "subagent_completed").map((data) => data.childSessionId)).toEqual(["par/a1", "par/b1"]);
    for (const [child, call] of [
      ["a", "a1"],
      ["b", "b1"],
    ] as const) {
      const log = await store.read(`par/${call}`);
      expect(log[0]?.data).toMatchObject({ agent: child, parentSessionId: "par", parentToolCallId: call });
      expect(log.at(-1)?.type).toBe("run_completed");
    }
    expect(result.usage).toEqual(usage({ requests: 6, input: 30, output: 8, toolCalls: 4 }));
  });
});

describe("sub-agent cancellation", () => {
  it("cancels the child when the parent run is aborted", async () => {
    let childSawAbort = false;
    let started: () => void = () => {};
    const childStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let ended: (error: unknown) => void = () => {};
    const childEnded = new Promise<unknown>((resolve) => {
      ended = resolve;
    });
    const wait = tool({
      name: "wait",
      description: "Wait forever",
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((_, reject) => {
          context.signal.addEventListener("abort", () => {
            childSawAbort = true;
            reject(new Error("aborted"));
          });
          started();
        }),
    });
    const child = new Agent({
      name: "waiter",
      model: new ScriptedModel([{ toolCalls: [{ name: "wait" }] }, { text: "never" }]),
      tools: [wait],
      hooks: { sessionEnd: ({ error }) => ended(error) },
    });
    const lead = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "c1", name: "ask", args: { prompt: "wait" } }] }, { text: "x" }]),
      tools: [agentAsTool(child, { name: "ask", description: "x" }), wait],
    });
    const store = new MemoryStore();
    const controller = new AbortController();
    const run = lead.run("go", { sessionId: "cancel", store, signal: controller.signal });
    await childStarted;
    controller.abort(new Error("user pressed stop"));

    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(await childEnded).toBeInstanceOf(CancelledError);
    expect(childSawAbort).toBe(true);
    const childLog = await store.read("cancel/c1");
    expect(childLog.at(-1)).toMatchObject({ type: "run_failed", data: { error: { code: "cancelled" } } });
    expect((await store.read("cancel")).at(-1)).toMatchObject({
      type: "run_failed",
      data: { error: { code: "cancelled" } },
    });
  });
});
