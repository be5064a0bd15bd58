import { CompactionFailedError } from "../errors/compaction-error.js";
import { NousError } from "../errors/nous-error.js";
import { type Model, type ModelRequest, type ModelResponse, modelName } from "../models/model.js";
import { resolveModel } from "../models/registry.js";
import { withRetry } from "../models/retry.js";
import { applyCompaction, SUMMARY_PREFIX } from "../session/compaction-view.js";
import { isEventOf, type SessionEvent } from "../session/events.js";
import type { Message } from "../session/messages.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { type DropToolResultsPolicy, SUMMARY_REQUEST, type SummarizePolicy } from "./compaction-policy.js";
import { estimateRequestTokens, nextRequestTokens } from "./context-tokens.js";
import { recordResponse } from "./request-dispatch.js";
import { noticeRecorder, recordRequest } from "./request-record.js";
import type { RunState } from "./run-state.js";

const summaryModels = new WeakMap<SummarizePolicy, Model>();

/**
 * Applies the agent's compaction policy (the option `compaction`) before `request` is sent: returns
 * it unchanged when nothing was compacted, else the same request with the compacted messages (the
 * log's projection after its new `compaction` event). A summarization call that fails throws
 * `CompactionFailedError` with its `model_request` recorded and nothing compacted.
 */
export async function compactBeforeRequest<D extends object, O>(
  state: RunState<D, O>,
  request: ModelRequest,
): Promise<ModelRequest> {
  const policy = state.config.options.compaction;
  if (policy === undefined || request.messages !== state.context.messages) return request;
  const compacted =
    policy.type === "summarize" ? await summarize(state, request, policy) : dropResults(state, request, policy);
  return compacted ? { ...request, messages: state.context.messages } : request;
}

function dropResults<D extends object, O>(
  state: RunState<D, O>,
  request: ModelRequest,
  policy: DropToolResultsPolicy,
): boolean {
  const messages = state.context.messages;
  // The results after the model's last answer are new to it: kept (and counted) until it has seen them.
  let seen = messages.length;
  while (seen > 0 && messages[seen - 1]?.role !== "assistant") seen--;
  const live: string[] = [];
  let fresh = 0;
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    if (index >= seen) fresh++;
    else if (message.result !== policy.placeholder) live.push(message.toolCallId);
  });
  const surplus = Math.min(live.length, live.length + fresh - policy.keepResults);
  if (surplus <= 0) return false;
  const tokensBefore = nextRequestTokens(state.context.log, request);
  if (policy.maxTokens !== undefined && tokensBefore <= policy.maxTokens) return false;
  const dropped = live.slice(0, surplus);
  const after = applyCompaction(
    { messages, seqs: state.context.log.messageSeqs },
    { strategy: "drop_tool_results", dropped, placeholder: policy.placeholder, tokensBefore, tokensAfter: 0 },
  );
  const tokensAfter = estimateRequestTokens({ ...request, messages: after.messages });
  state.record("compaction", {
    strategy: "drop_tool_results",
    dropped,
    placeholder: policy.placeholder,
    tokensBefore,
    tokensAfter,
  });
  return true;
}

async function summarize<D extends object, O>(
  state: RunState<D, O>,
  request: ModelRequest,
  policy: SummarizePolicy,
): Promise<boolean> {
  const log = state.context.log;
  const tokensBefore = nextRequestTokens(log, request);
  if (tokensBefore <= policy.maxTokens) return false;
  const messages = state.context.messages;
  const seqs = log.messageSeqs;
  const cut = chooseCut(messages, policy.keepTurns);
  if (cut === undefined) return false;
  const firstReplaced = messages.findIndex((message) => message.role !== "system");
  const from = seqs[firstReplaced] as number;
  const to = (seqs[cut] as number) - 1;
  const model = summaryModel(state, policy);
  const name = modelName(model);
  const appended: Message[] = [{ role: "user", content: SUMMARY_REQUEST }];
  const summaryRequest: ModelRequest = {
    instructions: policy.instructions,
    messages: [...messages.slice(0, cut), ...appended],
    // The conversation's tool calls need their tools defined (Anthropic refuses them otherwise); none may be called.
    tools: request.tools,
    ...(request.tools.length > 0 ? { toolChoice: "none" as const } : {}),
    settings: policy.settings ?? {},
    ...(state.config.signal === undefined ? {} : { signal: state.config.signal }),
    onNotice: noticeRecorder(state),
  };
  recordRequest(state, summaryRequest, name, {
    purpose: "compaction",
    model,
    window: summaryWindow(state.context.log.events, to),
    appended,
  });
  const requestSeq = state.context.log.nextSeq - 1;
  const committing = state.commit();
  if (committing) await committing;
  const started = performance.now();
  // Which model of a fallback chain answers this call: set by its own notices, not the last step's.
  state.fallbackTo = undefined;
  let response: ModelResponse;
  try {
    response = await raceAbort(model.doGenerate(summaryRequest), state.config.signal);
  } catch (error) {
    throwIfAborted(state.config.signal);
    if (NousError.isInstance(error) && error.fault === "cancelled") throw error;
    throw new CompactionFailedError({ problem: "summary_call_failed", model: name, cause: error });
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  const recording = recordResponse(state, model, response, latencyMs, "compaction");
  if (recording) await recording;
  const summary = response.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim();
  if (summary === "") throw new CompactionFailedError({ problem: "empty_summary", model: name });
  const tokensAfter = estimateRequestTokens({
    ...request,
    messages: [
      ...messages.slice(0, firstReplaced),
      { role: "user", content: SUMMARY_PREFIX + summary },
      ...messages.slice(cut),
    ],
  });
  state.record("compaction", {
    strategy: "summarize",
    summary,
    replaces: [from, to],
    requestSeq,
    tokensBefore,
    tokensAfter,
  });
  return true;
}

/**
 * Where the summarized part ends: the start of the `keepTurns`-th last turn (fewer, down to one,
 * when that leaves nothing new to summarize). A turn starts at a user message, or at a model answer
 * whose calls' results all follow it; so a cut never parts a call from its result.
 */
export function chooseCut(messages: readonly Message[], keepTurns: number): number | undefined {
  const starts = turnStarts(messages);
  for (let keep = Math.min(keepTurns, starts.length); keep >= 1; keep--) {
    const cut = starts[starts.length - keep] as number;
    if (messages.slice(0, cut).some((message) => message.role !== "system" && !isSummary(message))) return cut;
  }
  return undefined;
}

/** The indices at which a turn starts (see `chooseCut`), ascending. */
export function turnStarts(messages: readonly Message[]): number[] {
  const callAt = new Map<string, number>();
  // blocked[i] > 0: some call before i has its result at i or later.
  const blocked = new Array<number>(messages.length + 1).fill(0);
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call") callAt.set(part.toolCallId, index);
    } else if (message.role === "tool") {
      const call = callAt.get(message.toolCallId);
      if (call !== undefined && call < index) {
        blocked[call + 1] = (blocked[call + 1] as number) + 1;
        blocked[index + 1] = (blocked[index + 1] as number) - 1;
      }
    }
  });
  const starts: number[] = [];
  let open = 0;
  messages.forEach((message, index) => {
    open += blocked[index] as number;
    if (index > 0 && open === 0 && (message.role === "user" || message.role === "assistant")) starts.push(index);
  });
  return starts;
}

function isSummary(message: Message): boolean {
  return message.role === "user" && typeof message.content === "string" && message.content.startsWith(SUMMARY_PREFIX);
}

/**
 * The summarization call's window: every event up to `to`, and each later `compaction` (earlier
 * summaries and dropped results stay applied to what is summarized).
 */
function summaryWindow(events: readonly SessionEvent[], to: number): [number, number][] {
  const window: [number, number][] = [[(events[0] as SessionEvent).seq, to]];
  const later: [number, number][] = [];
  for (let index = events.length - 1; index >= 0 && (events[index] as SessionEvent).seq > to; index--) {
    const event = events[index] as SessionEvent;
    if (isEventOf(event, "compaction")) later.unshift([event.seq, event.seq]);
  }
  return [...window, ...later];
}

function summaryModel<D extends object, O>(state: RunState<D, O>, policy: SummarizePolicy): Model {
  if (policy.model === undefined) return state.config.model;
  if (typeof policy.model !== "string") return policy.model;
  let model = summaryModels.get(policy);
  if (model === undefined) {
    const retry = state.config.options.retry;
    const resolved = resolveModel(policy.model);
    model = retry === false ? resolved : withRetry(resolved, retry);
    summaryModels.set(policy, model);
  }
  return model;
}
