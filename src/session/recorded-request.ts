import { SessionLogFormatError } from "../errors/session-log-format-error.js";
import type { ModelRequest, WireTarget } from "../models/model.js";
import type { EventOf, SessionEvent } from "./events.js";
import { isEventOf } from "./events.js";
import type { Message } from "./messages.js";
import { projectMessages } from "./projections.js";

/** A model request as its `model_request` event records it, resolved against the log. */
export interface RecordedRequest {
  /** The `model_request` event. */
  readonly event: EventOf<"model_request">;
  /** The wire format it went out over: the request's own, or the fallback model's when asked for a `model_fallback`. */
  readonly wire: WireTarget | undefined;
  readonly stream: boolean;
  /** The vendor-neutral request: instructions, the messages of its window, tools, settings, output. */
  readonly request: ModelRequest;
}

/**
 * Resolves the request recorded at `seq` (a `model_request`, or a `model_fallback`: the same request,
 * sent to the next model) from the log alone: its tools from the `tool_definitions` event it names,
 * its messages by projecting the surface events of its window. Throws `SessionLogFormatError` when
 * `seq` names no such event or the log lacks what it refers to.
 *
 * @example
 * const { request, wire } = recordedRequest(result.log, 3);
 * request.messages; // the messages the model was sent
 */
export function recordedRequest(events: readonly SessionEvent[], seq: number): RecordedRequest {
  const index = indexOfSeq(events, seq);
  const target = events[index] as SessionEvent;
  let requestIndex = index;
  let wire: WireTarget | undefined;
  if (isEventOf(target, "model_fallback")) {
    wire = target.data.wire;
    while (requestIndex >= 0 && events[requestIndex]?.type !== "model_request") requestIndex--;
    if (requestIndex < 0) throw formatError(`model_fallback at seq ${seq} follows no model_request`);
  } else if (!isEventOf(target, "model_request")) {
    throw formatError(`seq ${seq} is a ${target.type} event, not a model_request or model_fallback`);
  }
  const event = events[requestIndex] as EventOf<"model_request">;
  if (!isEventOf(target, "model_fallback")) wire = event.data.wire;
  const data = event.data;
  const toolSet = data.toolsHash === undefined ? undefined : toolsOf(events, data.toolsHash, requestIndex);
  const request: ModelRequest = {
    ...(data.instructions === undefined ? {} : { instructions: data.instructions }),
    messages: withAppended(data.messages ?? windowMessages(events, data.window ?? [], requestIndex), data.appended),
    tools: toolSet?.tools ?? [],
    ...(toolSet?.providerTools === undefined ? {} : { providerTools: toolSet.providerTools }),
    ...(data.toolChoice === undefined ? {} : { toolChoice: data.toolChoice }),
    ...(data.output === undefined ? {} : { output: data.output }),
    ...(data.outputToolName === undefined ? {} : { outputToolName: data.outputToolName }),
    settings: data.settings ?? {},
  };
  return { event, wire, stream: data.stream === true, request };
}

/**
 * The messages projected from the events whose seq lies in one of `ranges` (inclusive), before
 * `end`: their surface events, with the `compaction` events among them applied (see `projectMessages`).
 */
export function windowMessages(
  events: readonly SessionEvent[],
  ranges: readonly (readonly [number, number])[],
  end: number = events.length,
): Message[] {
  const selected: SessionEvent[] = [];
  for (const [from, to] of ranges) {
    for (let index = Math.max(0, lowerBound(events, from)); index < end; index++) {
      const event = events[index] as SessionEvent;
      if (event.seq > to) break;
      selected.push(event);
    }
  }
  return projectMessages(selected);
}

function withAppended(messages: readonly Message[], appended: readonly Message[] | undefined): readonly Message[] {
  return appended === undefined ? messages : [...messages, ...appended];
}

function toolsOf(events: readonly SessionEvent[], hash: string, before: number): EventOf<"tool_definitions">["data"] {
  for (let index = before - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    if (isEventOf(event, "tool_definitions") && event.data.hash === hash) return event.data;
  }
  throw formatError(`no tool_definitions event with hash ${hash} before seq ${events[before]?.seq}`);
}

function indexOfSeq(events: readonly SessionEvent[], seq: number): number {
  const index = lowerBound(events, seq);
  if (events[index]?.seq !== seq) throw formatError(`the log has no event with seq ${seq}`);
  return index;
}

/** The index of the first event with `seq >= seq` (events are in seq order). */
function lowerBound(events: readonly SessionEvent[], seq: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((events[middle] as SessionEvent).seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

function formatError(message: string): SessionLogFormatError {
  return new SessionLogFormatError({ path: "model_request", detail: message });
}
