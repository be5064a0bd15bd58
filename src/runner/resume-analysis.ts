import type { RunCost } from "../cost/recorded-cost.js";
import { projectRunCost } from "../cost/run-cost.js";
import { toResponsePart } from "../models/assistant-parts.js";
import type { ModelResponse } from "../models/model.js";
import { readApprovals } from "../session/approval-state.js";
import type { SessionEvent } from "../session/events.js";
import { lastRun } from "../session/last-run.js";
import type { AssistantPart } from "../session/messages.js";
import { projectRunUsage } from "../session/projections.js";
import type { Usage } from "../session/usage.js";
import { SUBAGENT_PAUSED } from "./child-pause.js";
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
  readonly cost: RunCost;
}

/** Reads the last run of a session log: its id, whether it finished, and the tool calls still open. */
export function analyzeResumePoint(events: readonly SessionEvent[]): ResumePoint | undefined {
  const span = lastRun(events);
  if (span === undefined) return undefined;
  const run = events.slice(span.start);
  const runId = span.runId;
  const finished = run.some((event) => event.type === "run_completed");
  // Usage restarts from the log, as the run counted it: its own, and what its sub-agents reported.
  const usage = projectRunUsage(run);
  const cost = projectRunCost(run);
  const iteration = usage.requests;
  let lastAssistant = -1;
  for (const [index, event] of run.entries()) {
    if (event.type === "assistant_message") lastAssistant = index;
  }
  const after = lastAssistant === -1 ? [] : run.slice(lastAssistant + 1);
  const results = new Set<string>();
  const intents = new Map<string, unknown>();
  let askedAgain = false;
  for (const event of after) {
    const data = event.data as { toolCallId?: string; parentToolCallId?: string; args?: unknown };
    if (data.parentToolCallId !== undefined) continue; // a nested call: in the journal below
    if (event.type === "tool_result" && data.toolCallId) results.add(data.toolCallId);
    if (event.type === "tool_call" && data.toolCallId) intents.set(data.toolCallId, data.args);
    if (event.type === "model_request" || event.type === "user_message") askedAgain = true;
  }
  const inDoubt = new Set([...intents.keys()].filter((id) => !results.has(id)));
  const approvals = readApprovals(after);
  const resume: ResumeInfo = {
    inDoubt,
    intentArgs: intents,
    decided: approvals.decided,
    pending: new Set(approvals.pending.keys()),
    paused: pausedCalls(after),
    nested: readNestedJournal(after),
  };
  if (lastAssistant === -1 || askedAgain)
    return { runId, finished, pending: undefined, resume, iteration, usage, cost };
  const assistant = run[lastAssistant]?.data as { content: readonly AssistantPart[] };
  const content = assistant.content.filter((part) => part.type !== "tool-call" || !results.has(part.toolCallId));
  const hadCalls = assistant.content.some((part) => part.type === "tool-call");
  const openCalls = content.some((part) => part.type === "tool-call");
  if (hadCalls && !openCalls) return { runId, finished, pending: undefined, resume, iteration, usage, cost };
  return {
    runId,
    finished,
    pending: { content: content.map(toResponsePart), usage: {}, finishReason: openCalls ? "tool-calls" : "stop" },
    resume,
    iteration,
    usage,
    cost,
  };
}

/**
 * The calls of a turn that paused the run and are still open: a call whose nested call asked for
 * approval (`approval_requested` naming it as parent) or whose sub-agent did (`subagent_paused`),
 * and every call above it — when the pause came after its latest intent, or when the nested request
 * has not run yet (a resume before the decision pauses again without asking again). A resumed run
 * runs them again (their nested calls replay from the log; a sub-agent resumes its child): they are
 * not in doubt.
 */
function pausedCalls(events: readonly SessionEvent[]): ReadonlySet<string> {
  const parents = new Map<string, string>();
  const paused = new Set<string>();
  /** Nested requests that neither ran nor were refused yet, with their parents. */
  const waiting = new Map<string, string>();
  const pauseFrom = (id: string | undefined) => {
    const seen = new Set<string>();
    for (let current = id; current !== undefined && !seen.has(current); current = parents.get(current)) {
      seen.add(current);
      paused.add(current);
    }
  };
  for (const event of events) {
    const data = event.data as { toolCallId?: unknown; parentToolCallId?: unknown };
    const id = typeof data.toolCallId === "string" ? data.toolCallId : undefined;
    if (id === undefined) continue;
    if (event.type === "tool_call") {
      paused.delete(id);
      waiting.delete(id);
      if (typeof data.parentToolCallId === "string") parents.set(id, data.parentToolCallId);
    } else if (event.type === "tool_call_refused") {
      waiting.delete(id);
    } else if (event.type === "approval_requested" && typeof data.parentToolCallId === "string") {
      waiting.set(id, data.parentToolCallId);
      pauseFrom(data.parentToolCallId);
    } else if (event.type === SUBAGENT_PAUSED) {
      pauseFrom(id);
    }
  }
  for (const parent of waiting.values()) pauseFrom(parent);
  return paused;
}
