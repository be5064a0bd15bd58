import { toResponsePart } from "../models/assistant-parts.js";
import type { ModelResponse } from "../models/model.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import type { AssistantPart } from "../session/messages.js";
import { projectUsage } from "../session/projections.js";
import type { Usage } from "../session/usage.js";
import { readNestedJournal } from "./nested-journal.js";
import type { ResumeInfo } from "./run-state.js";

/** What the log of a session says about its last run, for resuming it. */
export interface ResumePoint {
  readonly runId: string;
  readonly finished: boolean;
  /** The last model turn, minus the tool calls that already have results; undefined when the next step is a model request. */
  readonly pending: ModelResponse | undefined;
  readonly resume: ResumeInfo;
  readonly iteration: number;
  readonly usage: Usage;
}

/** Reads the last run of a session log: its id, whether it finished, and the tool calls still open. */
export function analyzeResumePoint(events: readonly SessionEvent[]): ResumePoint | undefined {
  const span = lastRun(events);
  if (span === undefined) return undefined;
  const run = events.slice(span.start);
  const runId = span.runId;
  const finished = run.some((event) => event.type === "run_completed");
  // Usage restarts from the log, as a run's usage would have been counted.
  const usage = projectUsage(run);
  const iteration = usage.requests;
  let lastAssistant = -1;
  for (const [index, event] of run.entries()) {
    if (event.type === "assistant_message") lastAssistant = index;
  }
  const after = lastAssistant === -1 ? [] : run.slice(lastAssistant + 1);
  const results = new Set<string>();
  const intents = new Map<string, unknown>();
  const requested = new Set<string>();
  const decided = new Map<string, { approved: boolean; args?: unknown; reason?: string }>();
  let askedAgain = false;
  for (const event of after) {
    const data = event.data as {
      toolCallId?: string;
      parentToolCallId?: string;
      approved?: boolean;
      args?: unknown;
      reason?: string;
    };
    if (data.parentToolCallId !== undefined) continue; // a nested call: in the journal below
    if (event.type === "tool_result" && data.toolCallId) results.add(data.toolCallId);
    if (event.type === "tool_call" && data.toolCallId) intents.set(data.toolCallId, data.args);
    if (event.type === "approval_requested" && data.toolCallId) requested.add(data.toolCallId);
    if (event.type === "approval_decided" && data.toolCallId) {
      decided.set(data.toolCallId, { approved: data.approved === true, args: data.args, reason: data.reason });
    }
    if (event.type === "model_request" || event.type === "user_message") askedAgain = true;
  }
  const inDoubt = new Set([...intents.keys()].filter((id) => !results.has(id)));
  const pendingApprovals = new Set([...requested].filter((id) => !decided.has(id)));
  const resume: ResumeInfo = {
    inDoubt,
    intentArgs: intents,
    decided,
    pending: pendingApprovals,
    nested: readNestedJournal(after),
  };
  if (lastAssistant === -1 || askedAgain) return { runId, finished, pending: undefined, resume, iteration, usage };
  const assistant = run[lastAssistant]?.data as { content: readonly AssistantPart[] };
  const content = assistant.content.filter((part) => part.type !== "tool-call" || !results.has(part.toolCallId));
  const hadCalls = assistant.content.some((part) => part.type === "tool-call");
  const openCalls = content.some((part) => part.type === "tool-call");
  if (hadCalls && !openCalls) return { runId, finished, pending: undefined, resume, iteration, usage };
  return {
    runId,
    finished,
    pending: { content: content.map(toResponsePart), usage: {}, finishReason: openCalls ? "tool-calls" : "stop" },
    resume,
    iteration,
    usage,
  };
}
