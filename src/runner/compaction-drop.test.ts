import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { ModelRequest } from "../models/model.js";
import { wirePairingProblems } from "../models/providers/test-support/wire-pairing.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { EventOf } from "../session/events.js";
import type { Message } from "../session/messages.js";
import { projectMessages } from "../session/projections.js";
import { recordedRequest } from "../session/recorded-request.js";
import { tool } from "../tools/tool.js";
import { DEFAULT_DROPPED_PLACEHOLDER, dropToolResults, summarizeHistory } from "./compaction-policy.js";
import { chooseCut, turnStarts } from "./compaction-step.js";
import { estimateRequestTokens } from "./context-tokens.js";

const read = tool({
  name: "read",
  description: "Reads a file",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}: ${"data ".repeat(40)}`,
});

const resultsOf = (messages: readonly Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? [message.result] : []));

/** One run that reads `count` files, one per step, then answers; it reports the estimate of each request as its input tokens. */
function readingModel(count: number): ScriptedModel {
  const usage = (request: ModelRequest) => ({ inputTokens: estimateRequestTokens(request), outputTokens: 1 });
  return new ScriptedModel([
    ...Array.from({ length: count }, (_, index) => (request: ModelRequest) => ({
      toolCalls: [{ id: `c${index + 1}`, name: "read", args: { path: `f${index + 1}` } }],
      usage: usage(request),
    })),
    (request: ModelRequest) => ({ text: "read them all", usage: usage(request) }),
  ]);
}

describe("dropToolResults", () => {
  it("keeps the N most recent results, shows the older ones as the placeholder, and records which", async () => {
    const model = readingModel(6);
    const agent = new Agent({ model, tools: [read], maxIterations: 20, compaction: dropToolResults({ keep: 2 }) });
    const result = await agent.run("read six files");
    // Each request: the results the model has seen beyond the 2 most recent are dropped.
    expect(
      model.requests.map(
        (request) => resultsOf(request.messages).filter((r) => r === DEFAULT_DROPPED_PLACEHOLDER).length,
      ),
    ).toEqual([0, 0, 0, 1, 2, 3, 4]);
    for (const request of model.requests) {
      const results = resultsOf(request.messages);
      expect(results.slice(-2).every((r) => r !== DEFAULT_DROPPED_PLACEHOLDER)).toBe(true);
      expect(wirePairingProblems(request)).toEqual([]);
    }
    const compactions = result.log.filter((event): event is EventOf<"compaction"> => event.type === "compaction");
    expect(compactions.map((event) => event.data.strategy === "drop_tool_results" && event.data.dropped)).toEqual([
      ["c1"],
      ["c2"],
      ["c3"],
      ["c4"],
    ]);
    for (const event of compactions) expect(event.data.tokensAfter).toBeLessThan(event.data.tokensBefore);
    // The raw results stay in the log; the projection applies the compactions.
    expect(result.log.filter((event) => event.type === "tool_result")).toHaveLength(6);
    expect(JSON.stringify(result.log)).toContain("contents of f1");
    expect(result.messages).toEqual(projectMessages(result.log));
    for (const event of result.log.filter((event) => event.type === "model_request")) {
      expect(recordedRequest(result.log, event.seq).request.messages).toEqual(
        model.requests[result.log.filter((e) => e.type === "model_request" && e.seq < event.seq).length]?.messages,
      );
    }
  });

  it("never drops a result the model has not seen yet, even with keep: 0", async () => {
    const model = readingModel(3);
    await new Agent({ model, tools: [read], compaction: dropToolResults({ keep: 0, placeholder: "[x]" }) }).run("go");
    expect(model.requests.map((request) => resultsOf(request.messages))).toEqual([
      [],
      [expect.stringContaining("f1")],
      ["[x]", expect.stringContaining("f2")],
      ["[x]", "[x]", expect.stringContaining("f3")],
    ]);
  });

  it("with maxTokens, drops only once a request would exceed it", async () => {
    const model = readingModel(6);
    // About 60 tokens per result: the budget is crossed after a few.
    await new Agent({
      model,
      tools: [read],
      maxIterations: 20,
      compaction: dropToolResults({ keep: 1, maxTokens: 330 }),
    }).run("go");
    const dropped = model.requests.map(
      (request) => resultsOf(request.messages).filter((r) => r === DEFAULT_DROPPED_PLACEHOLDER).length,
    );
    expect(dropped.slice(0, 3)).toEqual([0, 0, 0]);
    expect(dropped.at(-1)).toBeGreaterThan(0);
  });

  it("refuses a bad count or budget", () => {
    expect(() => dropToolResults({ keep: -1 })).toThrow(DefinitionError);
    expect(() => dropToolResults({ maxTokens: 0 })).toThrow(DefinitionError);
    expect(() => summarizeHistory({ maxTokens: 1.5 })).toThrow(DefinitionError);
    expect(() => summarizeHistory({ maxTokens: 100, keepTurns: 0 })).toThrow(DefinitionError);
    expect(summarizeHistory({ maxTokens: 100 })).toMatchObject({ type: "summarize", keepTurns: 2 });
  });
});

describe("where a summary may cut", () => {
  const call = (id: string) => ({ type: "tool-call" as const, toolCallId: id, toolName: "t", args: {} });
  const messages: Message[] = [
    { role: "system", content: "rules" },
    { role: "user", content: "one" },
    { role: "assistant", content: [call("a"), call("b")] },
    { role: "tool", toolCallId: "a", toolName: "t", result: 1, isError: false },
    { role: "tool", toolCallId: "b", toolName: "t", result: 2, isError: false },
    { role: "assistant", content: [{ type: "text", text: "ok" }] },
    { role: "user", content: "two" },
  ];

  it("turns start at user messages and at answers whose calls are all answered before them, never between a call and its result", () => {
    expect(turnStarts(messages)).toEqual([1, 2, 5, 6]);
    expect(chooseCut(messages, 2)).toBe(5);
    // Keeping every turn would leave nothing to summarize: one turn fewer is kept.
    expect(chooseCut(messages, 9)).toBe(2);
  });

  it("keeps fewer turns rather than summarize nothing new, and gives up when only one turn exists", () => {
    expect(chooseCut(messages.slice(0, 2), 2)).toBeUndefined();
    expect(
      chooseCut(
        [
          { role: "user", content: "x" },
          { role: "assistant", content: [call("z")] },
        ],
        3,
      ),
    ).toBe(1);
  });
});
