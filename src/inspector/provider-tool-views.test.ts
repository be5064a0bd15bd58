import { describe, expect, it } from "vitest";
import { summarizeEvent } from "../cli/session-timeline.js";
import type { SessionEvent } from "../session/events.js";
import { VIEWS_SCRIPT } from "./page-script-views.js";

// The page script is plain JavaScript; its functions that touch no DOM run here as they do in the page.
const views = new Function(`${VIEWS_SCRIPT}\nreturn { eventSummary };`)() as {
  eventSummary(event: SessionEvent): string;
};

const at = "2026-12-01T00:00:00.000Z";
const event = (type: string, data: unknown): SessionEvent => ({ seq: 1, at, type, data });
const model = "openai:gpt-5-mini";
const call = event("provider_tool_call", {
  model,
  toolCallId: "ws_1",
  toolName: "web_search",
  input: { type: "search", query: "weather Paris" },
});
const result = event("provider_tool_result", {
  model,
  toolCallId: "ws_1",
  toolName: "web_search",
  result: { status: "completed" },
  isError: false,
  sources: [
    { type: "url", url: "https://a.example" },
    { type: "url", url: "https://b.example" },
  ],
});
const failed = event("provider_tool_result", {
  model,
  toolCallId: "ci_1",
  toolName: "code_interpreter",
  result: { status: "failed" },
  isError: true,
});
const cited = event("provider_sources", {
  model,
  sources: [{ type: "file", fileId: "file-1", filename: "policy.pdf" }],
});
const definitions = event("tool_definitions", {
  hash: "0123456789abcdef",
  tools: [{ name: "get_time", description: "x", inputSchema: {} }],
  providerTools: [{ type: "provider", id: "openai.web_search", provider: "openai", name: "web_search", args: {} }],
});

describe("provider tool events in the CLI timeline and the inspector", () => {
  it("the CLI says what ran at the provider, what it found and what the answer cites", () => {
    expect(summarizeEvent(call)).toBe(
      'web_search({"type":"search","query":"weather Paris"}) ran at the provider · call ws_1',
    );
    expect(summarizeEvent(result)).toBe("web_search: 2 sources: https://a.example, https://b.example · call ws_1");
    expect(summarizeEvent(failed)).toBe('✗ code_interpreter: {"status":"failed"} · call ci_1');
    expect(summarizeEvent(cited)).toBe("cites 1 source: policy.pdf");
    expect(summarizeEvent(definitions)).toBe("2 tools (get_time, openai.web_search) · 0123456789ab");
  });

  it("the inspector's timeline rows say the same", () => {
    expect(views.eventSummary(call)).toBe('web_search({"type":"search","query":"weather Paris"}) at the provider ws_1');
    expect(views.eventSummary(result)).toBe("web_search: 2 source(s): https://a.example, https://b.example");
    expect(views.eventSummary(failed)).toBe('error from code_interpreter: {"status":"failed"}');
    expect(views.eventSummary(cited)).toBe("cites 1 source(s): policy.pdf");
    expect(views.eventSummary(definitions)).toBe("2 tools: get_time, openai.web_search");
  });
});
