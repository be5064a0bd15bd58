/**
 * Sessions for the inspector's tests of what was sent and what was lost, appended event by event in
 * the shapes `src/session/events.ts` defines: a run whose request was retried, reset, fell back, was
 * answered, then failed mid-stream (partial output); a paused run; a sub-agent's session under one of
 * its calls; and a session of 10,000 events.
 */
import type { BuiltinEventType, EventDataMap, SessionEvent, SessionStore } from "../../index.js";

const START = Date.parse("2026-01-05T10:00:00.000Z");

/** Builds one session's events: seqs dense from 1, times at given offsets (ms) from START. */
class Log {
  readonly events: SessionEvent[] = [];
  add<T extends BuiltinEventType>(offsetMs: number, type: T, data: EventDataMap[T]): number {
    const seq = this.events.length + 1;
    this.events.push({ seq, at: new Date(START + offsetMs).toISOString(), type, data } as SessionEvent);
    return seq;
  }
  custom(offsetMs: number, type: string, data: unknown): number {
    const seq = this.events.length + 1;
    this.events.push({ seq, at: new Date(START + offsetMs).toISOString(), type, data });
    return seq;
  }
}

const usage = (inputTokens: number, outputTokens: number) => ({
  requests: 1,
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  toolCalls: 0,
});

const LOOKUP = {
  name: "lookup",
  description: "Look a word up",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
};

export const INJECTION = '<img src=x onerror="window.__pwned=1">';

/** The seqs the tests look at in the "sent" session. */
export interface SentSeqs {
  readonly request: number;
  readonly retry: number;
  readonly reset: number;
  readonly fallback: number;
  readonly response: number;
  readonly call: number;
  readonly update: number;
  readonly result: number;
  readonly secondRequest: number;
  readonly partial: number;
  readonly failed: number;
}

/** A failed run: retry, stream reset, fallback, an answered call with a deps update, then a cut-off answer. */
export function sentSession(): { events: SessionEvent[]; seqs: SentSeqs } {
  const log = new Log();
  const model = "openai:gpt-4o";
  const fallbackModel = "anthropic:claude-sonnet-4-5";
  log.add(0, "run_started", { runId: "r1", agent: "writer", model });
  log.add(1, "context_update", {
    operations: [
      { op: "set", key: "count", value: 1 },
      { op: "set", key: "cart", value: ["milk"] },
      { op: "set", key: "prefs", value: { theme: "light", lang: "en" } },
      { op: "set", key: "draft", value: "x" },
    ],
  });
  const user = log.add(5, "user_message", { content: `Look up milk ${INJECTION}` });
  log.add(8, "tool_definitions", { hash: "h1", tools: [LOOKUP] });
  const request = log.add(10, "model_request", {
    model,
    iteration: 0,
    messageCount: 1,
    wire: { api: "openai-responses", modelId: "gpt-4o" },
    stream: true,
    instructions: `You are terse. ${INJECTION}`,
    toolsHash: "h1",
    toolChoice: "required",
    output: { type: "json", name: "summary", schema: { type: "object", properties: { text: { type: "string" } } } },
    settings: { temperature: 0.2, maxOutputTokens: 256, providerOptions: { openai: { reasoningEffort: "low" } } },
    window: [[user, user]],
  });
  const retry = log.add(60, "model_retry", {
    model,
    attempt: 1,
    error: { code: "rate_limited", name: "RateLimitError", message: "Too many requests", status: 429 },
    retryAfterMs: 1500,
    delayMs: 1500,
  });
  const reset = log.add(1600, "model_stream_reset", {
    model,
    reason: "retry",
    discarded: {
      text: "Half an ans",
      reasoning: "Let me think",
      toolCalls: [{ toolCallId: "x1", toolName: "lookup", argsText: '{"word":"mi', complete: false }],
    },
  });
  const fallback = log.add(1700, "model_fallback", {
    from: model,
    to: fallbackModel,
    wire: { api: "anthropic", modelId: "claude-sonnet-4-5" },
    error: { code: "provider_error", name: "ProviderError", message: "Bad gateway", status: 502 },
  });
  const response = log.add(2512, "model_response", {
    model: fallbackModel,
    usage: usage(120, 20),
    finishReason: "tool-calls",
    latencyMs: 812,
    responseId: "msg_01ABC",
    requestId: "req_42",
  });
  const assistant = log.add(2513, "assistant_message", {
    content: [{ type: "tool-call", toolCallId: "t1", toolName: "lookup", args: { word: "milk" } }],
  });
  const call = log.add(2514, "tool_call", { toolCallId: "t1", toolName: "lookup", args: { word: "milk" } });
  log.custom(2520, "subagent_started", { childSessionId: "sent/t1", toolCallId: "t1", agent: "helper", depth: 1 });
  const update = log.add(2600, "context_update", {
    toolCallId: "t1",
    toolName: "lookup",
    operations: [
      { op: "set", key: "count", value: 2 },
      { op: "merge", key: "prefs", value: { theme: "dark" } },
      { op: "append", key: "cart", item: "eggs" },
      { op: "delete", key: "draft" },
    ],
  });
  const result = log.add(2764, "tool_result", {
    toolCallId: "t1",
    toolName: "lookup",
    result: "white",
    isError: false,
  });
  const secondRequest = log.add(2800, "model_request", {
    model: fallbackModel,
    iteration: 1,
    messageCount: 3,
    wire: { api: "anthropic", modelId: "claude-sonnet-4-5" },
    stream: true,
    instructions: "You are terse.",
    toolsHash: "h1",
    settings: { temperature: 0.2 },
    window: [
      [user, user],
      [assistant, assistant],
      [result, result],
    ],
  });
  const partial = log.add(3300, "partial_response", {
    model: fallbackModel,
    reason: "failed",
    error: { code: "provider_error", name: "ProviderError", message: "Connection reset" },
    output: {
      text: `Milk is ${INJECTION} white`,
      reasoning: "The user wants a colour",
      toolCalls: [
        { toolCallId: "t2", toolName: "lookup", argsText: '{"word":', complete: false },
        { toolCallId: "t3", toolName: "lookup", argsText: '{"word":"cow"}', complete: true },
      ],
    },
  });
  const failed = log.add(3301, "run_failed", {
    runId: "r1",
    error: { code: "provider_error", message: `Connection reset ${INJECTION}` },
  });
  return {
    events: log.events,
    seqs: { request, retry, reset, fallback, response, call, update, result, secondRequest, partial, failed },
  };
}

/** The sub-agent session run for call t1 of "sent". */
export function childSession(): SessionEvent[] {
  const log = new Log();
  log.add(2521, "run_started", {
    runId: "c1",
    agent: "helper",
    parentSessionId: "sent",
    parentRunId: "r1",
    parentToolCallId: "t1",
    depth: 1,
  });
  log.add(2522, "user_message", { content: "milk?" });
  log.add(2590, "run_completed", { runId: "c1", output: "white" });
  return log.events;
}

/** A run paused on an approval. */
export function pausedSession(): SessionEvent[] {
  const log = new Log();
  log.add(0, "run_started", { runId: "p1", agent: "janitor", model: "openai:gpt-4o" });
  log.add(2, "user_message", { content: "Clean up" });
  log.add(3, "model_request", { model: "openai:gpt-4o", iteration: 0, messageCount: 1 });
  log.add(400, "model_response", {
    model: "openai:gpt-4o",
    usage: usage(10, 5),
    finishReason: "tool-calls",
    latencyMs: 397,
  });
  log.add(401, "assistant_message", {
    content: [{ type: "tool-call", toolCallId: "d1", toolName: "delete_file", args: { path: "/tmp/x" } }],
  });
  log.add(402, "approval_requested", { toolCallId: "d1", toolName: "delete_file", args: { path: "/tmp/x" } });
  log.add(403, "run_paused", {
    runId: "p1",
    pending: [{ toolCallId: "d1", toolName: "delete_file", args: { path: "/tmp/x" } }],
  });
  return log.events;
}

/** `count` events (about): a long run of requests, calls, deps appends and results. */
export function bigSession(count: number): SessionEvent[] {
  const log = new Log();
  log.add(0, "run_started", { runId: "b1", agent: "grinder", model: "openai:gpt-4o-mini" });
  log.add(1, "user_message", { content: "Grind" });
  let time = 2;
  for (let step = 0; log.events.length + 6 < count; step++) {
    const id = `g${step}`;
    log.add(time, "model_request", { model: "openai:gpt-4o-mini", iteration: step, messageCount: 1 + step * 3 });
    log.add(time + 40, "model_response", {
      model: "openai:gpt-4o-mini",
      usage: usage(100 + step, 10),
      finishReason: "tool-calls",
      latencyMs: 40,
    });
    log.add(time + 41, "assistant_message", {
      content: [{ type: "tool-call", toolCallId: id, toolName: "grind", args: { step } }],
    });
    log.add(time + 42, "tool_call", { toolCallId: id, toolName: "grind", args: { step } });
    log.add(time + 45, "context_update", {
      toolCallId: id,
      toolName: "grind",
      operations: [{ op: "set", key: "step", value: step }],
    });
    log.add(time + 50, "tool_result", { toolCallId: id, toolName: "grind", result: `ground ${step}`, isError: false });
    time += 60;
  }
  while (log.events.length < count - 1) log.custom(time, "audit", { note: "tick" });
  log.add(time + 1, "run_completed", { runId: "b1", output: "done" });
  return log.events;
}

/** Appends every fixture session to `store`. */
export async function recordFixtures(store: SessionStore, bigCount = 10_000): Promise<SentSeqs> {
  const sent = sentSession();
  for (const [id, events] of [
    ["sent", sent.events],
    ["sent/t1", childSession()],
    ["paused", pausedSession()],
    ["big", bigSession(bigCount)],
  ] as const) {
    await store.append(id, events, { expectedLastSeq: 0 });
  }
  return sent.seqs;
}
