import { priceResponse } from "../cost/price-response.js";
import { addCost, type RecordedCost } from "../cost/recorded-cost.js";
import { responseCost } from "../cost/run-cost.js";
import { FALLBACK_PROVIDER, firstOfChain } from "../models/fallback.js";
import type { Model, ModelRequest, ModelResponse } from "../models/model.js";
import { isMessagePart, modelName } from "../models/model.js";
import type { EventDataMap, RequestPurpose } from "../session/events.js";
import type { AssistantPart } from "../session/messages.js";
import { addUsage, responseUsage } from "../session/usage.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { recordProviderToolParts } from "./provider-tool-record.js";
import { noticeRecorder, recordRequest } from "./request-record.js";
import type { RunState } from "./run-state.js";
import { checkRequestLimit, checkTokenLimits } from "./stop-rules.js";
import { consumeModelStream } from "./streaming.js";
import { parseArgs } from "./tool-arguments.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The `"provider:model"` of the model of a fallback chain that answered — the one the chain last
 * moved to, or its first — for pricing: the recorded name (`fallback:…`) names no provider.
 */
function answeringModel(model: Model, response: ModelResponse, movedTo: string | undefined): string | undefined {
  if (model.provider !== FALLBACK_PROVIDER) return undefined;
  const answered = movedTo ?? firstOfChain(model.modelId);
  const colon = answered.indexOf(":");
  if (colon === -1 || response.modelId === undefined) return answered;
  return `${answered.slice(0, colon)}:${response.modelId}`;
}

/**
 * Sends one request (streaming or not), records `model_request`, `model_response` and the
 * `assistant_message`, and adds the usage. Returns the response the hooks settled on.
 */
export async function dispatchRequest<D extends object, O>(
  state: RunState<D, O>,
  original: ModelRequest,
): Promise<ModelResponse> {
  const { model, hooks, signal, emit } = state.config;
  throwIfAborted(signal);
  checkRequestLimit(state);
  // Hooks are awaited only when set: an await per absent hook per step is measurable.
  let request = hooks.preRequest ? ((await hooks.preRequest(original, state.runContext())) ?? original) : original;
  if (request.onNotice === undefined) request = { ...request, onNotice: noticeRecorder(state) };
  const name = modelName(model);
  recordRequest(state, request, name);
  // No request goes out before its record: committed with the step's earlier events (one fsync).
  const committing = state.commit();
  if (committing) await committing;
  const started = performance.now();
  state.fallbackTo = undefined;
  let response: ModelResponse;
  if (emit) {
    response = await consumeModelStream(state, model, model.doStream(request));
  } else {
    response = await raceAbort(model.doGenerate(request), signal);
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  if (hooks.postResponse) response = (await hooks.postResponse(response, state.runContext())) ?? response;
  const recording = recordResponse(state, model, response, latencyMs);
  if (recording) await recording;
  // Committed with the turn's first tool intent, or at the end of the step: a response lost to a
  // crash before then is asked for again on resume, and nothing has acted on it yet.
  state.context = state.context.addMessage({ role: "assistant", content: toAssistantParts(response) });
  checkTokenLimits(state);
  return response;
}

function toAssistantParts(response: ModelResponse): AssistantPart[] {
  return response.content.filter(isMessagePart).map((part): AssistantPart => {
    if (part.type !== "tool-call") return part;
    const parsed = parseArgs(part.argsText);
    const call: AssistantPart = {
      type: "tool-call",
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      args: parsed.ok ? parsed.value : part.argsText,
    };
    return part.providerMetadata ? { ...call, providerMetadata: part.providerMetadata } : call;
  });
}

/**
 * Adds a response's usage and cost to the run's and records its `model_response` (with `purpose`
 * for a call made for another reason than the next step, e.g. a compaction's summary). A promise
 * only while the price data loads.
 */
export function recordResponse<D extends object, O>(
  state: RunState<D, O>,
  model: Model,
  response: ModelResponse,
  latencyMs: number,
  purpose?: RequestPurpose,
): Promise<void> | undefined {
  const name = modelName(model);
  state.usage = addUsage(state.usage, responseUsage(response.usage));
  const recorded: Mutable<EventDataMap["model_response"]> = {
    model: response.modelId ? `${model.provider}:${response.modelId}` : name,
    usage: response.usage,
    finishReason: response.finishReason,
    latencyMs,
  };
  // Assigned, not spread in: this runs once per step.
  if (response.responseId !== undefined) recorded.responseId = response.responseId;
  if (response.requestId !== undefined) recorded.requestId = response.requestId;
  if (purpose !== undefined) recorded.purpose = purpose;
  const { pricing, now } = state.config.options;
  // Prices in force now, by the clock the events are stamped with. A promise only while the price
  // data loads (once per process) — or never, for unpriced models.
  const priced = priceResponse(answeringModel(model, response, state.fallbackTo) ?? recorded.model, response.usage, {
    ...(pricing === undefined ? {} : { pricing }),
    ...(now === undefined ? {} : { at: now() }),
  });
  const finish = (cost: RecordedCost | undefined): void => {
    if (cost !== undefined) recorded.cost = cost;
    state.cost = addCost(state.cost, responseCost(cost));
    state.record("model_response", recorded);
    if (response.content.some((part) => !isMessagePart(part))) recordProviderToolParts(state, response, recorded.model);
  };
  if (priced instanceof Promise) return priced.then(finish);
  finish(priced);
  return undefined;
}
