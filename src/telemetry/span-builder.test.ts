import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { codeMode } from "../code-mode/code-mode.js";
import { ProviderServerError, RateLimitError } from "../errors/provider-error.js";
import { ApprovalPendingError } from "../errors/run-errors.js";
import type { Model } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { openTelemetry } from "./open-telemetry.js";
import type { PlannedSpan } from "./planned-span.js";
import { planSession } from "./span-builder.js";
import { memoryTracing, outline, spanTrees } from "./test-support/tracing.js";

const send = tool({
  name: "send",
  description: "Sends a note",
  input: z.object({ note: z.string() }),
  needsApproval: true,
  execute: ({ note }) => note.length,
});

const lines = (span: PlannedSpan, depth = 0): string[] => [
  `${"  ".repeat(depth)}${span.name} ${String(span.attributes["nous.run.outcome"] ?? "")}`.trimEnd(),
  ...span.children.flatMap((child) => lines(child, depth + 1)),
];

describe("planSession", () => {
  it("ends a paused run's span at run_paused and starts the resumed run's own span at run_resumed", async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      name: "sender",
      model: new ScriptedModel([{ toolCalls: [{ id: "n1", name: "send", args: { note: "hi" } }] }, { text: "sent" }]),
      tools: [send],
    });
    await expect(agent.run("send it", { sessionId: "p", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    await agent.resume("p", { store });

    const { runs } = planSession("p", await store.read("p"));
    expect(runs.map((run) => lines(run.span))).toEqual([
      ["invoke_agent sender paused", "  chat script"],
      ["invoke_agent sender completed", "  execute_tool send", "  chat script"],
    ]);
    const [paused, resumed] = runs;
    expect(paused?.span.events.map((event) => event.name)).toEqual(["nous.approval_requested"]);
    expect(resumed?.span.attributes["nous.run.resumed"]).toBe(true);
    expect(resumed?.span.events.map((event) => [event.name, event.attributes["nous.approved"]])).toEqual([
      ["nous.approval_decided", true],
    ]);
  });

  it("leaves a program that paused on a nested approval unfinished, and gives its re-run in the resumed run its own span", async () => {
    const guarded = tool({
      name: "guarded",
      description: "Needs approval",
      input: z.object({}),
      needsApproval: true,
      execute: () => "ran",
    });
    const plain = tool({ name: "plain", description: "Runs", input: z.object({}), execute: () => "ok" });
    const code = "await tools.plain({}); return await tools.guarded({});";
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "p", name: "run_code", args: { code } }] }, { text: "done" }]),
      tools: [guarded, plain, codeMode({ tools: [guarded, plain], limits: { timeMs: 5000 } })],
    });
    const store = new MemoryStore();
    await expect(agent.run("go", { sessionId: "n", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "approve" });
    await agent.resume("n", { store });

    const { runs } = planSession("n", await store.read("n"));
    const marked = (span: PlannedSpan, depth = 0): string[] => [
      `${"  ".repeat(depth)}${span.name}${span.attributes["nous.unfinished"] === true ? " unfinished" : ""}`,
      ...span.children.flatMap((child) => marked(child, depth + 1)),
    ];
    expect(runs.map((run) => marked(run.span))).toEqual([
      ["invoke_agent", "  chat script", "  execute_tool run_code unfinished", "    execute_tool plain"],
      ["invoke_agent", "  execute_tool run_code", "    execute_tool guarded", "  chat script"],
    ]);
    const program = runs[0]?.span.children[1];
    expect(program?.events.map((event) => [event.name, event.attributes["gen_ai.tool.call.id"]])).toEqual([
      ["nous.approval_requested", "p.2"],
    ]);
  });

  it("closes what a log leaves open at its last event, marked unfinished (a crash)", async () => {
    const store = new MemoryStore();
    const agent = new Agent({ model: new ScriptedModel([{ text: "hi" }]) });
    await agent.run("hello", { sessionId: "c", store });
    const cut = (await store.read("c")).filter(
      (event) => event.type !== "model_response" && event.type !== "run_completed",
    );
    const [run] = planSession("c", cut).runs;
    expect(run?.span.attributes["nous.run.outcome"]).toBe("interrupted");
    expect(run?.span.children[0]?.attributes["nous.unfinished"]).toBe(true);
    expect(run?.span.end).toBe(cut.at(-1)?.at);
  });
});

/** A model of provider "flaky" that fails with `errors` (one per call) before it answers `answer`. */
function failing(errors: Error[], answer: string): Model {
  let calls = 0;
  const scripted = new ScriptedModel([{ text: answer }], { modelId: answer });
  return {
    ...scripted,
    specificationVersion: scripted.specificationVersion,
    provider: "flaky",
    modelId: answer,
    wire: { api: "openai-chat", modelId: answer },
    doGenerate: (request) => {
      const error = errors[calls++];
      return error ? Promise.reject(error) : scripted.doGenerate(request);
    },
    doStream: (request) => scripted.doStream(request),
  };
}

describe("a crash", () => {
  it("ends the crashed run at its last event, its open call unfinished; the resume's span holds the call's re-run", async () => {
    const look = tool({
      name: "look",
      description: "Looks",
      input: z.object({}),
      idempotent: true,
      execute: () => "x",
    });
    const script = () =>
      new ScriptedModel([{ toolCalls: [{ id: "x1", name: "look", args: {} }] }, { text: "next answer" }]);
    const finished = await new Agent({ model: script(), tools: [look] }).run("go");
    // The process died right after the call's intent was committed.
    const cut = finished.log.slice(0, finished.log.findIndex((event) => event.type === "tool_call") + 1);
    const store = new MemoryStore();
    await store.append("c", cut, { expectedLastSeq: 0 });
    const resumed = new Agent({ model: new ScriptedModel([{ text: "next answer" }]), tools: [look] });
    await resumed.resume("c", { store });

    const [crashed, next] = planSession("c", await store.read("c")).runs;
    expect(crashed?.span.attributes["nous.run.outcome"]).toBe("interrupted");
    expect(crashed?.span.end).toBe(cut.at(-1)?.at);
    expect(crashed?.span.children.map((span) => [span.name, span.attributes["nous.unfinished"]])).toEqual([
      ["chat script", undefined],
      ["execute_tool look", true],
    ]);
    expect(next?.span.attributes).toMatchObject({ "nous.run.outcome": "completed", "nous.run.resumed": true });
    expect(next?.span.children.map((span) => [span.name, span.attributes["nous.rerun"]])).toEqual([
      ["execute_tool look", true],
      ["chat script", undefined],
    ]);
  });
});

describe("a cancelled call", () => {
  it("fails with its run, and the next run's span tells that it was abandoned", async () => {
    let started = false;
    const look = tool({
      name: "look",
      description: "Waits",
      input: z.object({}),
      idempotent: true,
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          started = true;
          context.signal.addEventListener("abort", () => reject(context.signal.reason));
        }),
    });
    const store = new MemoryStore();
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "x1", name: "look", args: {} }] }, { text: "next answer" }]),
      tools: [look],
    });
    const controller = new AbortController();
    const running = agent.run("go", { sessionId: "a", store, signal: controller.signal });
    while (!started) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    await expect(running).rejects.toThrow(/cancel/i);
    await agent.run("and now?", { sessionId: "a", store });

    const [cancelled, next] = planSession("a", await store.read("a")).runs;
    const code = cancelled?.span.attributes["error.type"];
    expect(code).toBe("cancelled");
    expect(
      cancelled?.span.children.map((span) => [span.name, span.status.code, span.attributes["error.type"]]),
    ).toEqual([
      ["chat script", "unset", undefined],
      ["execute_tool look", "error", code],
    ]);
    expect(next?.span.events.map((event) => [event.name, event.attributes["gen_ai.tool.call.id"]])).toEqual([
      ["nous.tool_call_abandoned", "x1"],
    ]);
    expect(next?.span.children.map((span) => span.name)).toEqual(["chat script"]);
  });
});

describe("retries and fallbacks", () => {
  it("are span events of their request's one chat span, whose response model is the one that answered", async () => {
    const agent = new Agent({
      model: failing(
        [
          new RateLimitError({ provider: "flaky", message: "slow down", status: 429 }),
          new ProviderServerError({ provider: "flaky", message: "boom", status: 503 }),
        ],
        "first",
      ),
      fallback: [failing([], "second")],
      retry: { maxRetries: 1, initialDelayMs: 1, jitter: 0, sleep: async () => {} },
    });
    const result = await agent.run("hi");
    const [run] = planSession(undefined, result.log).runs;
    expect(run?.span.children.map((span) => span.name)).toEqual(["chat first"]);
    const chat = run?.span.children[0];
    expect(chat?.status).toEqual({ code: "unset" });
    expect(chat?.attributes).toMatchObject({
      "gen_ai.provider.name": "flaky",
      "gen_ai.request.model": "first",
      "gen_ai.response.model": "second",
    });
    expect(chat?.events.map((event) => [event.name, event.attributes["error.type"]])).toEqual([
      ["nous.model_retry", "provider_rate_limit"],
      ["nous.model_fallback", "provider_server_error"],
    ]);
  });
});

describe("live tracing of a stream", () => {
  it("emits the run's spans when its reader stops early", async () => {
    const tracing = memoryTracing();
    const agent = new Agent({
      name: "talker",
      model: new ScriptedModel([{ toolCalls: [{ id: "n1", name: "count", args: {} }] }, { text: "done" }]),
      tools: [tool({ name: "count", description: "Counts", input: z.object({}), execute: () => 1 })],
      telemetry: openTelemetry({ tracer: tracing.tracer }),
    });
    const stream = agent.stream("go");
    for await (const event of stream) if (event.kind === "event" && event.type === "tool_result") break;
    await stream.result.catch(() => undefined);
    const trees = spanTrees(tracing.exporter.getFinishedSpans());
    expect(outline(trees)).toEqual([
      "invoke_agent talker (internal)",
      "  chat script (client)",
      "  execute_tool count (internal)",
    ]);
    expect(trees[0]?.attributes["nous.run.outcome"]).toBe("interrupted");
  });
});
