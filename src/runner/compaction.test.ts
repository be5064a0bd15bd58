/**
 * Acceptance: a 500-turn session with tool calls in most turns and a small token budget completes
 * by compacting; every request stays under the budget and passes each provider's tool-pairing and
 * role rules; the log keeps every original event; a fork before the first compaction sees the raw
 * history; a resume after a crash uses the recorded compaction.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { CompactionFailedError } from "../errors/compaction-error.js";
import type { ModelRequest } from "../models/model.js";
import { wirePairingProblems } from "../models/providers/test-support/wire-pairing.js";
import { ScriptedModel, type ScriptStep } from "../models/scripted-model.js";
import type { ScriptedResponse } from "../models/scripted-response.js";
import { SUMMARY_PREFIX } from "../session/compaction-view.js";
import type { EventOf, SessionEvent } from "../session/events.js";
import { projectMessages, projectUsage } from "../session/projections.js";
import { recordedRequest } from "../session/recorded-request.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { SUMMARY_REQUEST, summarizeHistory } from "./compaction-policy.js";
import { estimateRequestTokens } from "./context-tokens.js";

const BUDGET = 1_500;

const lookup = tool({
  name: "lookup",
  description: "Looks a record up",
  input: z.object({ id: z.number() }),
  execute: ({ id }) => ({ id, record: `record ${id}: ${"lorem ipsum ".repeat(12)}` }),
});

const isSummaryCall = (request: ModelRequest): boolean => {
  const last = request.messages.at(-1);
  return last?.role === "user" && last.content === SUMMARY_REQUEST;
};

/**
 * A model that calls `lookup` (twice in every third turn, once in most, never in every fifth), answers
 * after the results, and writes a short summary when asked; it reports the estimate of each request
 * as its input tokens, as a provider reports its count.
 */
function sessionModel(summaries: { count: number }): ScriptedModel {
  const step: ScriptStep = (request) => {
    const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 5 };
    if (isSummaryCall(request)) {
      summaries.count += 1;
      return { text: `Summary ${summaries.count}: the user asked about records; all were looked up.`, usage };
    }
    const last = request.messages.at(-1);
    if (last?.role === "user" && typeof last.content === "string") {
      const turn = Number(/turn (\d+)/.exec(last.content)?.[1]);
      if (turn % 5 === 0) return { text: `No lookup needed for turn ${turn}.`, usage };
      const toolCalls = [{ name: "lookup", args: { id: turn } }];
      if (turn % 3 === 0) toolCalls.push({ name: "lookup", args: { id: turn + 1000 } });
      return { toolCalls, usage } satisfies ScriptedResponse;
    }
    return { text: "Here is what I found.", usage };
  };
  return new ScriptedModel(Array.from({ length: 5_000 }, () => step));
}

const requestsOf = (log: readonly SessionEvent[]) =>
  log.filter((event): event is EventOf<"model_request"> => event.type === "model_request");

describe("a 500-turn session with summarizing compaction", async () => {
  const store = new MemoryStore();
  const summaries = { count: 0 };
  const model = sessionModel(summaries);
  const agent = new Agent({
    model,
    instructions: "You look records up.",
    tools: [lookup],
    compaction: summarizeHistory({ maxTokens: BUDGET, keepTurns: 2 }),
  });
  for (let turn = 1; turn <= 500; turn++) await agent.run(`Please handle turn ${turn}.`, { sessionId: "long", store });
  const log = await store.read("long");

  it("compacts and keeps every request under the budget", () => {
    const compactions = log.filter((event): event is EventOf<"compaction"> => event.type === "compaction");
    expect(compactions.length).toBeGreaterThan(20);
    expect(summaries.count).toBe(compactions.length);
    const main = model.requests.filter((request) => !isSummaryCall(request));
    expect(main.length).toBeGreaterThan(800);
    for (const request of main) expect(estimateRequestTokens(request)).toBeLessThanOrEqual(BUDGET);
    for (const compaction of compactions) {
      expect(compaction.data).toMatchObject({ strategy: "summarize", summary: expect.stringMatching(/^Summary \d+/) });
      if (compaction.data.strategy === "summarize")
        expect(compaction.data.tokensAfter).toBeLessThan(compaction.data.tokensBefore);
    }
  });

  it("keeps every original event, and the summarization calls are recorded and counted", () => {
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    const prompts = log
      .filter((event) => event.type === "user_message")
      .map((event) => (event.data as { content: string }).content);
    expect(prompts).toEqual(Array.from({ length: 500 }, (_, index) => `Please handle turn ${index + 1}.`));
    const calls = log.flatMap((event) =>
      event.type === "assistant_message"
        ? (event.data as { content: { type: string; toolCallId?: string }[] }).content.filter(
            (part) => part.type === "tool-call",
          )
        : [],
    );
    const results = log.filter((event) => event.type === "tool_result");
    expect(results).toHaveLength(calls.length);
    expect(calls.length).toBe(400 + (166 - 33)); // turns not divisible by 5, plus a second call in those divisible by 3 (not 15)
    const requests = requestsOf(log);
    expect(requests).toHaveLength(model.requests.length);
    expect(requests.filter((event) => event.data.purpose === "compaction")).toHaveLength(summaries.count);
    const responses = log.filter((event): event is EventOf<"model_response"> => event.type === "model_response");
    expect(responses.filter((event) => event.data.purpose === "compaction")).toHaveLength(summaries.count);
    expect(projectUsage(log).requests).toBe(model.requests.length);
  });

  it("records every request so that the log rebuilds it exactly, summarization calls included", () => {
    const requests = requestsOf(log);
    requests.forEach((event, index) => {
      const sent = model.requests[index] as ModelRequest;
      const { request } = recordedRequest(log, event.seq);
      expect(request.messages).toEqual(sent.messages);
      expect(request.instructions).toEqual(sent.instructions);
      expect(request.toolChoice).toEqual(sent.toolChoice);
      expect(event.data.messages).toBeUndefined();
    });
  });

  it("sends only requests every provider accepts: each result after its call, each call answered, roles alternating", () => {
    for (const event of requestsOf(log)) {
      const { request } = recordedRequest(log, event.seq);
      expect(wirePairingProblems(request)).toEqual([]);
    }
  });

  it("shows the summary as a user message and the raw turns after it", () => {
    const messages = projectMessages(log);
    const [first, ...rest] = messages;
    expect(first).toMatchObject({ role: "user", content: expect.stringContaining(SUMMARY_PREFIX) });
    expect(rest.some((message) => message.role === "user" && String(message.content).startsWith(SUMMARY_PREFIX))).toBe(
      false,
    );
    expect(messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("a fork before the first compaction sees the raw history", async () => {
    const first = log.find((event) => event.type === "compaction") as SessionEvent;
    // The end of the last run before it: a fork there is a finished session to go on with.
    const end = log.findLast((event) => event.type === "run_completed" && event.seq < first.seq) as SessionEvent;
    const forked = await store.fork("long", { atSeq: end.seq, newSessionId: "fork" });
    const events = await store.read(forked);
    const raw = projectMessages(events);
    expect(raw).toHaveLength(
      events.filter((event) => ["user_message", "assistant_message", "tool_result"].includes(event.type)).length,
    );
    expect(raw[0]).toEqual({ role: "user", content: "Please handle turn 1." });
    const plain = new ScriptedModel([{ text: "fine" }]);
    await new Agent({ model: plain, instructions: "You look records up.", tools: [lookup] }).run("and now?", {
      sessionId: forked,
      store,
    });
    expect(plain.requests[0]?.messages).toEqual([...raw, { role: "user", content: "and now?" }]);
  });
});

describe("compaction and crashes", () => {
  it("a resume after a crash right after a compaction sends the compacted history", async () => {
    const store = new MemoryStore();
    const model = sessionModel({ count: 0 });
    const agent = new Agent({ model, tools: [lookup], compaction: summarizeHistory({ maxTokens: 400, keepTurns: 1 }) });
    for (let turn = 1; turn <= 12; turn++) await agent.run(`Please handle turn ${turn}.`, { sessionId: "c", store });
    const log = await store.read("c");
    const last = log.findLastIndex((event) => event.type === "compaction");
    expect(last).toBeGreaterThan(0);
    // The crash: the process died after committing the compaction, before the request it was for.
    const crashed = new MemoryStore();
    await crashed.append(
      "c",
      log.slice(0, last + 1).map(({ sessionId: _session, ...event }) => event as SessionEvent),
      { expectedLastSeq: 0 },
    );
    const resumedModel = sessionModel({ count: 0 });
    const resumed = new Agent({
      model: resumedModel,
      tools: [lookup],
      compaction: summarizeHistory({ maxTokens: 400, keepTurns: 1 }),
    });
    const result = await resumed.resume("c", { store: crashed });
    expect(resumedModel.requests[0]?.messages).toEqual(projectMessages(log.slice(0, last + 1)));
    expect(resumedModel.requests[0]?.messages[0]).toMatchObject({ content: expect.stringContaining(SUMMARY_PREFIX) });
    expect(result.messages).toEqual(projectMessages(result.log));
    const after = result.log.slice(last + 1);
    expect(after.filter((event) => event.type === "compaction")).toHaveLength(0);
    const request = after.find((event) => event.type === "model_request") as SessionEvent;
    expect(recordedRequest(result.log, request.seq).request.messages).toEqual(resumedModel.requests[0]?.messages);
  });

  it("a failed summarization call fails the run with CompactionFailedError, recorded, nothing compacted or lost", async () => {
    const store = new MemoryStore();
    const steps: ScriptStep[] = [
      { toolCalls: [{ name: "lookup", args: { id: 1 } }], usage: { inputTokens: 900 } },
      () => {
        throw new Error("summary model down");
      },
    ];
    const model = new ScriptedModel(steps);
    const agent = new Agent({ model, tools: [lookup], compaction: summarizeHistory({ maxTokens: 100, keepTurns: 1 }) });
    const error = await agent.run("turn 1", { sessionId: "f", store }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompactionFailedError);
    expect((error as CompactionFailedError).problem).toBe("summary_call_failed");
    const log = await store.read("f");
    const requests = requestsOf(log);
    expect(requests.map((event) => event.data.purpose)).toEqual([undefined, "compaction"]);
    expect(log.some((event) => event.type === "compaction")).toBe(false);
    expect(log.at(-1)).toMatchObject({ type: "run_failed", data: { error: { code: "compaction_failed" } } });
    expect(log.filter((event) => event.type === "tool_result")).toHaveLength(1);
    expect(projectMessages(log)).toHaveLength(3);
  });

  it("a summary with no text is a CompactionFailedError too", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "lookup", args: { id: 1 } }], usage: { inputTokens: 900 } },
      { text: "  " },
    ]);
    const agent = new Agent({ model, tools: [lookup], compaction: summarizeHistory({ maxTokens: 100, keepTurns: 1 }) });
    const error = await agent.run("turn 1").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "compaction_failed", problem: "empty_summary", fault: "model" });
  });

  it("a streamed run delivers the compaction's events as the log's live tail", async () => {
    const model = sessionModel({ count: 0 });
    const agent = new Agent({ model, tools: [lookup], compaction: summarizeHistory({ maxTokens: 300, keepTurns: 1 }) });
    const store = new MemoryStore();
    for (let turn = 1; turn <= 3; turn++) await agent.run(`Please handle turn ${turn}.`, { sessionId: "s", store });
    const before = (await store.read("s")).length;
    const stream = agent.stream("Please handle turn 4.", { sessionId: "s", store });
    const streamed: { seq: number; type: string; data: unknown }[] = [];
    for await (const event of stream)
      if (event.kind === "event") streamed.push({ seq: event.seq, type: event.type, data: event.data });
    const result = await stream.result;
    const tail = result.log.slice(before).map(({ seq, type, data }) => ({ seq, type, data }));
    expect(streamed).toEqual(tail);
    expect(streamed.some((event) => event.type === "compaction")).toBe(true);
    expect(result.messages).toEqual(projectMessages(result.log));
  });

  it("another model may write the summary: its call is recorded under its name and counted in the run's usage", async () => {
    const main = new ScriptedModel([
      { toolCalls: [{ name: "lookup", args: { id: 1 } }], usage: { inputTokens: 900, outputTokens: 5 } },
      { text: "found it", usage: { inputTokens: 50, outputTokens: 5 } },
    ]);
    const summarizer = new ScriptedModel(
      [{ text: "The user wants record 1.", usage: { inputTokens: 70, outputTokens: 9 } }],
      {
        modelId: "small",
      },
    );
    const agent = new Agent({
      model: main,
      tools: [lookup],
      compaction: summarizeHistory({ maxTokens: 100, keepTurns: 1, model: summarizer, instructions: "Be short." }),
    });
    const result = await agent.run("turn 1");
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]?.instructions).toBe("Be short.");
    expect(main.requests[1]?.messages[0]).toEqual({
      role: "user",
      content: `${SUMMARY_PREFIX}The user wants record 1.`,
    });
    const requests = requestsOf(result.log);
    expect(requests.map((event) => [event.data.model, event.data.purpose])).toEqual([
      ["scripted:script", undefined],
      ["scripted:small", "compaction"],
      ["scripted:script", undefined],
    ]);
    expect(result.usage).toMatchObject({ requests: 3, inputTokens: 1020, outputTokens: 19 });
    expect(projectUsage(result.log)).toEqual(result.usage);
  });
});
