import { describe, expect, it } from "vitest";
import { applyCompaction, SUMMARY_PREFIX } from "./compaction-view.js";
import type { CompactionData, SessionEvent } from "./events.js";
import type { Message } from "./messages.js";
import { projectMessages } from "./projections.js";
import { windowMessages } from "./recorded-request.js";
import { SessionLog } from "./session-log.js";

const call = (id: string) => ({ type: "tool-call" as const, toolCallId: id, toolName: "t", args: {} });

/** A log: system, user, call a, result a, answer, user, call b, result b. */
function baseLog(): SessionLog {
  return SessionLog.empty()
    .append("system_message", { content: "rules" })
    .append("user_message", { content: "one" })
    .append("assistant_message", { content: [call("a")] })
    .append("tool_result", { toolCallId: "a", toolName: "t", result: { big: "x".repeat(50) }, isError: false })
    .append("model_response", { model: "m", usage: {}, finishReason: "stop", latencyMs: 1 })
    .append("assistant_message", { content: [{ type: "text", text: "done one" }] })
    .append("user_message", { content: "two" })
    .append("assistant_message", { content: [call("b")] })
    .append("tool_result", { toolCallId: "b", toolName: "t", result: "rb", isError: true });
}

const summarize = (from: number, to: number, summary: string): CompactionData => ({
  strategy: "summarize",
  summary,
  replaces: [from, to],
  requestSeq: 99,
  tokensBefore: 10,
  tokensAfter: 5,
});

describe("applyCompaction and the messages projection", () => {
  it("a summary takes the place of its range, system messages stay, later messages follow", () => {
    const log = baseLog().append("compaction", summarize(2, 6, "S1"));
    const expected: Message[] = [
      { role: "system", content: "rules" },
      { role: "user", content: `${SUMMARY_PREFIX}S1` },
      { role: "user", content: "two" },
      { role: "assistant", content: [call("b")] },
      { role: "tool", toolCallId: "b", toolName: "t", result: "rb", isError: true },
    ];
    expect(log.messages).toEqual(expected);
    expect(projectMessages(log.events)).toEqual(expected);
    expect(log.messageSeqs).toEqual([1, 2, 7, 8, 9]);
  });

  it("the compaction event projects to no message, and messages appended after it follow the summary", () => {
    const log = baseLog()
      .append("compaction", summarize(2, 6, "S1"))
      .append("assistant_message", { content: [{ type: "text", text: "done two" }] });
    expect(log.messages).toHaveLength(6);
    expect(log.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "done two" }] });
    expect(projectMessages(log.events)).toEqual(log.messages);
  });

  it("a second summary replaces the first one with what followed it", () => {
    const log = baseLog()
      .append("compaction", summarize(2, 6, "S1"))
      .append("compaction", summarize(2, 7, "S2"));
    expect(log.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(log.messages[1]).toEqual({ role: "user", content: `${SUMMARY_PREFIX}S2` });
    expect(projectMessages(log.events)).toEqual(log.messages);
  });

  it("dropped results read the placeholder; the call and its pairing stay; later results of the same id do not", () => {
    const log = baseLog()
      .append("compaction", {
        strategy: "drop_tool_results",
        dropped: ["a"],
        placeholder: "[gone]",
        tokensBefore: 9,
        tokensAfter: 3,
      })
      .append("assistant_message", { content: [call("a")] })
      .append("tool_result", { toolCallId: "a", toolName: "t", result: "fresh", isError: false });
    const results = log.messages.flatMap((message) =>
      message.role === "tool" ? [[message.toolCallId, message.result]] : [],
    );
    expect(results).toEqual([
      ["a", "[gone]"],
      ["b", "rb"],
      ["a", "fresh"],
    ]);
    expect(projectMessages(log.events)).toEqual(log.messages);
  });

  it("the raw events stay in the log; a prefix before the compaction (a fork) projects the raw history", () => {
    const raw = baseLog();
    const log = raw.append("compaction", summarize(2, 6, "S1"));
    expect(log.events.slice(0, raw.length)).toEqual(raw.events);
    expect(log.prefix(raw.length).messages).toEqual(raw.messages);
    expect(log.prefix(raw.length).messages).toHaveLength(8);
  });

  it("a log branched before a compaction keeps its own view (logs are immutable)", () => {
    const raw = baseLog();
    const compacted = raw.append("compaction", summarize(2, 6, "S1"));
    const branch = raw.append("user_message", { content: "three" });
    expect(raw.messages).toHaveLength(8);
    expect(branch.messages).toHaveLength(9);
    expect(compacted.messages).toHaveLength(5);
    expect(SessionLog.fromEvents(compacted.events).messages).toEqual(compacted.messages);
  });

  it("a window over a compacted log applies the compactions in it (what rebuildRequest sends)", () => {
    const log = baseLog().append("compaction", summarize(2, 6, "S1"));
    const events: readonly SessionEvent[] = log.events;
    expect(windowMessages(events, [[1, 10]])).toEqual(log.messages);
    // The window a later summarization sends: the events before its cut and the compactions after it.
    const summarizing = log.append("user_message", { content: "three" }).append("compaction", summarize(2, 9, "S2"));
    expect(
      windowMessages(summarizing.events, [
        [1, 9],
        [10, 10],
      ]),
    ).toEqual(log.messages);
  });

  it("applyCompaction never touches the view it is given", () => {
    const view = { messages: Object.freeze([...baseLog().messages]), seqs: Object.freeze([1, 2, 3, 4, 6, 7, 8, 9]) };
    const after = applyCompaction(view, summarize(2, 4, "S"));
    expect(view.messages).toHaveLength(8);
    expect(after.messages).toHaveLength(6);
    expect(after.seqs).toEqual([1, 2, 6, 7, 8, 9]);
  });
});
