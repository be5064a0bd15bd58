import type { Model, ModelCallNotice, ModelRequest, ModelSettings, ToolDefinition } from "../models/model.js";
import { modelName } from "../models/model.js";
import type { ProviderTool } from "../models/provider-tool.js";
import { sha256Hex } from "../platform/sha256.js";
import { canonicalJson } from "../session/canonical-json.js";
import type { EventDataMap, RecordedSettings, RequestPurpose, SessionEvent } from "../session/events.js";
import type { Message } from "../session/messages.js";
import { recordedError } from "../session/recorded-error.js";
import type { RunState } from "./run-state.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// Agents reuse one frozen definitions array and one settings object from step to step: each is
// hashed or normalized once, not once per request.
const hashes = new WeakMap<readonly ToolDefinition[], string>();
const normalized = new WeakMap<ModelSettings, RecordedSettings>();
/** What `normalized` holds for settings that record nothing. */
const NO_SETTINGS: RecordedSettings = Object.freeze({});

/**
 * SHA-256 (hex) of the canonical JSON of a set of tool definitions: the `hash` of its
 * `tool_definitions` event and the `toolsHash` of the requests that sent it.
 *
 * @example
 * toolDefinitionsHash([{ name: "add", description: "Adds", inputSchema: { type: "object" } }]); // "3f…"
 */
export function toolDefinitionsHash(tools: readonly ToolDefinition[]): string {
  let hash = hashes.get(tools);
  if (hash === undefined) {
    hash = sha256Hex(canonicalJson(tools));
    hashes.set(tools, hash);
  }
  return hash;
}

const setHashes = new WeakMap<readonly ProviderTool[], { tools: readonly ToolDefinition[]; hash: string }>();

/** The hash of function tools sent with provider tools: of `{ tools, providerTools }`, so a set without provider tools keeps its hash. */
function toolSetHash(tools: readonly ToolDefinition[], providerTools: readonly ProviderTool[]): string {
  const cached = setHashes.get(providerTools);
  if (cached?.tools === tools) return cached.hash;
  const hash = sha256Hex(canonicalJson({ tools, providerTools }));
  setHashes.set(providerTools, { tools, hash });
  return hash;
}

/**
 * Records `model_request` for a request about to be sent, as the provider will receive it: wire,
 * stream flag, instructions, tools (by hash, with one `tool_definitions` event per distinct set in
 * the session), settings, output, and the messages as the seq range of the surface events they are
 * the projection of — or inline, when a `preRequest` hook sent other messages. `name` is the
 * model's `provider:modelId` (the caller has it already). A call made for another purpose (a
 * compaction's summary) names its model, window and appended messages in `side`; it is not streamed.
 */
export function recordRequest<D extends object, O>(
  state: RunState<D, O>,
  request: ModelRequest,
  name: string = modelName(state.config.model),
  side?: SideRequest,
): void {
  const model = side?.model ?? state.config.model;
  const emit = side === undefined ? state.config.emit : undefined;
  const log = state.context.log;
  const data: Mutable<EventDataMap["model_request"]> = {
    model: name,
    iteration: state.iteration,
    messageCount: request.messages.length,
  };
  if (side !== undefined) {
    data.purpose = side.purpose;
    data.window = side.window;
    if (side.appended.length > 0) data.appended = side.appended;
  } else if (request.messages === state.context.messages) {
    // Bookkeeping events project to nothing: the whole log so far is the window, in O(1).
    data.window = log.length === 0 ? [] : [[(log.at(0) as SessionEvent).seq, log.nextSeq - 1]];
  } else {
    data.messages = request.messages;
  }
  if (model.wire !== undefined) data.wire = model.wire;
  data.stream = emit !== undefined;
  if (request.instructions !== undefined) data.instructions = request.instructions;
  const hosted = request.providerTools ?? [];
  if (request.tools.length > 0 || hosted.length > 0) {
    const hash = hosted.length === 0 ? toolDefinitionsHash(request.tools) : toolSetHash(request.tools, hosted);
    const known = knownToolHashes(state);
    if (!known.has(hash)) {
      state.record("tool_definitions", {
        hash,
        tools: request.tools,
        ...(hosted.length > 0 ? { providerTools: hosted } : {}),
      });
      known.add(hash);
    }
    data.toolsHash = hash;
  }
  if (request.toolChoice !== undefined) data.toolChoice = request.toolChoice;
  if (request.output !== undefined) data.output = request.output;
  if (request.outputToolName !== undefined) data.outputToolName = request.outputToolName;
  const settings = recordedSettings(request.settings);
  if (settings !== undefined) data.settings = settings;
  state.record("model_request", data);
}

/** A request made for another purpose than the run's next step, as `recordRequest` records it. */
export interface SideRequest {
  readonly purpose: RequestPurpose;
  readonly model: Model;
  /** The seq ranges of the events whose projection the request's messages start with. */
  readonly window: readonly (readonly [number, number])[];
  /** The messages sent after the window's. */
  readonly appended: readonly Message[];
}

/**
 * The request's `onNotice`: records each retry (`model_retry`) and each move to the next model of a
 * fallback chain (`model_fallback`) in the run's log. One function per run.
 */
export function noticeRecorder<D extends object, O>(
  state: RunState<D, O>,
): (notice: ModelCallNotice) => Promise<void> | undefined {
  let recorder = state.noticeRecorder;
  if (recorder === undefined) {
    recorder = (notice) => {
      switch (notice.type) {
        case "retry":
          state.record("model_retry", {
            model: notice.model,
            attempt: notice.attempt,
            error: recordedError(notice.error),
            ...(notice.retryAfterMs === undefined ? {} : { retryAfterMs: notice.retryAfterMs }),
            delayMs: notice.delayMs,
          });
          break;
        case "fallback":
          state.fallbackTo = notice.to;
          state.record("model_fallback", {
            from: notice.from,
            to: notice.to,
            ...(notice.wire === undefined ? {} : { wire: notice.wire }),
            error: recordedError(notice.error),
          });
          break;
        default: {
          const unhandled: never = notice;
          throw new TypeError(`unknown model notice ${JSON.stringify(unhandled)}`);
        }
      }
      // The wrapper waits for this before its next attempt: no request goes out before its record.
      return state.commit();
    };
    state.noticeRecorder = recorder;
  }
  return recorder;
}

/** The hashes of the `tool_definitions` events in the session's log: read once per run. */
function knownToolHashes<D extends object, O>(state: RunState<D, O>): Set<string> {
  let known = state.knownToolHashes;
  if (known === undefined) {
    known = new Set();
    const log = state.context.log;
    for (let index = 0; index < log.length; index++) {
      const event = log.at(index) as SessionEvent;
      if (event.type === "tool_definitions") known.add((event.data as { hash: string }).hash);
    }
    state.knownToolHashes = known;
  }
  return known;
}

/** Settings as JSON (what the provider's body is built from), or undefined when there are none. */
function recordedSettings(settings: ModelSettings): RecordedSettings | undefined {
  // One lookup per request, empty settings (the usual case) included.
  const cached = normalized.get(settings);
  if (cached !== undefined) return cached === NO_SETTINGS ? undefined : cached;
  const json =
    Object.keys(settings).length === 0 ? undefined : (JSON.parse(JSON.stringify(settings) ?? "{}") as RecordedSettings);
  const result = json === undefined || Object.keys(json).length === 0 ? undefined : json;
  normalized.set(settings, result ?? NO_SETTINGS);
  return result;
}
