import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../index.js";
import { summarizeEvent } from "./session-timeline.js";

const at = "2026-12-01T00:00:00.000Z";
const event = (type: string, data: unknown): SessionEvent => ({ seq: 1, at, type, data });
const error = { code: "provider_network", name: "NetworkError", message: "scripted: reset by peer", status: 503 };

describe("timeline lines of the request, retry and pause events", () => {
  it("says what each one recorded, in one line", () => {
    const partial = {
      text: "Once upon a time",
      reasoning: "",
      toolCalls: [{ toolCallId: "c1", toolName: "pay", argsText: '{"a', complete: false }],
    };
    expect(summarizeEvent(event("partial_response", { model: "m:x", reason: "aborted", output: partial }))).toBe(
      'm:x cut off (aborted) · kept text "Once upon a time", 1 tool call (1 incomplete)',
    );
    expect(
      summarizeEvent(
        event("model_stream_reset", {
          model: "m:x",
          reason: "retry",
          discarded: { text: "", reasoning: "", toolCalls: [] },
        }),
      ),
    ).toBe("m:x restarted (retry) · discarded no text");
    expect(summarizeEvent(event("model_retry", { model: "m:x", attempt: 1, error, delayMs: 500 }))).toBe(
      "m:x · attempt 1 failed: provider_network 503 scripted: reset by peer · retry in 500 ms",
    );
    expect(summarizeEvent(event("model_fallback", { from: "a:1", to: "b:2", error }))).toBe(
      "a:1 → b:2: provider_network 503 scripted: reset by peer",
    );
    const pending = [{ toolCallId: "t1", toolName: "transfer", args: { amount: 5 } }];
    expect(summarizeEvent(event("run_paused", { runId: "r1", pending }))).toBe(
      "run r1 waits for approval of transfer (t1)",
    );
    const tools = [{ name: "add", description: "x", inputSchema: {} }];
    expect(summarizeEvent(event("tool_definitions", { hash: "0123456789abcdef", tools }))).toBe(
      "1 tools (add) · 0123456789ab",
    );
  });
});

describe("timeline lines of compactions", () => {
  it("say what was summarized or dropped, and the tokens before and after", () => {
    const summarized = {
      strategy: "summarize",
      summary: "The user asked about orders.",
      replaces: [2, 40],
      requestSeq: 41,
      tokensBefore: 9120,
      tokensAfter: 840,
    };
    expect(summarizeEvent(event("compaction", summarized))).toBe(
      "seq 2–40 summarized: The user asked about orders. · 9120 → 840 tokens",
    );
    const dropped = {
      strategy: "drop_tool_results",
      dropped: ["a", "b"],
      placeholder: "[x]",
      tokensBefore: 900,
      tokensAfter: 300,
    };
    expect(summarizeEvent(event("compaction", dropped))).toBe("2 tool results dropped · 900 → 300 tokens");
    expect(
      summarizeEvent(event("model_request", { model: "m:x", iteration: 3, messageCount: 9, purpose: "compaction" })),
    ).toBe("m:x · iteration 3 · 9 messages · for compaction");
  });
});
