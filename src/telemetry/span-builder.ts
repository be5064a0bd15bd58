import type { BuiltinEvent, EventOf, SessionEvent } from "../session/events.js";
import { isBuiltinEvent } from "../session/events.js";
import { windowMessages } from "../session/recorded-request.js";
import { contentJson, inputMessages, outputMessages, systemInstructions } from "./content-attributes.js";
import {
  costAttributes,
  finishReason,
  modelParts,
  responseModel,
  settingsAttributes,
  usageAttributes,
} from "./gen-ai-attributes.js";
import { failSpan, type PlannedSpan, plannedSpan } from "./planned-span.js";

/** How a run span ended: its `nous.run.outcome`. */
export type RunOutcome = "completed" | "failed" | "paused" | "interrupted";

/** One run of a session (from its `run_started` or `run_resumed` to its end) as a span tree. */
export interface PlannedRun {
  readonly runId: string;
  /** Index in the session's events of the event that started it. */
  readonly index: number;
  readonly span: PlannedSpan;
}

/** A session's runs as span trees, and each tool call's spans by call id (for sub-agents to hang from). */
export interface SessionPlan {
  readonly runs: readonly PlannedRun[];
  readonly toolSpans: ReadonlyMap<string, readonly PlannedSpan[]>;
}

export interface PlanOptions {
  /** Add message content, instructions, tool arguments and results as attributes (default false). */
  readonly captureContent?: boolean;
}

/**
 * The spans a session log describes, walked in order: per run an `invoke_agent` span, in it a
 * `chat` span per model request (retries, fallbacks and stream resets as its span events) and an
 * `execute_tool` span per tool call, nested calls (code mode) in their parent's. Times are the
 * events' `at`. A span still open where its run's events stop is closed there with
 * `nous.unfinished: true`. Pure: the same events give the same plan.
 *
 * @example
 * const { runs } = planSession("s1", await store.read("s1"));
 * runs[0]?.span.name; // "invoke_agent support"
 */
export function planSession(
  sessionId: string | undefined,
  events: readonly SessionEvent[],
  options: PlanOptions = {},
): SessionPlan {
  const builder = new SpanBuilder(sessionId, events, options.captureContent === true);
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as SessionEvent;
    if (isBuiltinEvent(event)) builder.add(event, index);
  }
  builder.endRun(events.at(-1)?.at ?? "", "interrupted");
  return { runs: builder.runs, toolSpans: builder.toolSpans };
}

class SpanBuilder {
  readonly runs: PlannedRun[] = [];
  readonly toolSpans = new Map<string, PlannedSpan[]>();
  readonly #sessionId: string | undefined;
  readonly #events: readonly SessionEvent[];
  readonly #capture: boolean;
  readonly #agents = new Map<string, string | undefined>();
  #run: PlannedSpan | undefined;
  #chat: PlannedSpan | undefined;
  /** The chat span whose response was the last event: the next `assistant_message` is its output. */
  #answered: { span: PlannedSpan; finishReason: string } | undefined;
  readonly #tools = new Map<string, PlannedSpan>();
  /** Span events recorded while no run was open (an approval decided between a pause and the resume): the next run's. */
  #betweenRuns: PlannedSpan["events"] = [];
  /** The `at` of the event before the current one: where a run interrupted without an end event ends. */
  #lastAt = "";

  constructor(sessionId: string | undefined, events: readonly SessionEvent[], capture: boolean) {
    this.#sessionId = sessionId;
    this.#events = events;
    this.#capture = capture;
  }

  add(event: BuiltinEvent, index: number): void {
    this.#take(event, index);
    this.#lastAt = event.at;
  }

  #take(event: BuiltinEvent, index: number): void {
    const answered = this.#answered;
    this.#answered = undefined;
    switch (event.type) {
      case "run_started":
        this.#agents.set(event.data.runId, event.data.agent);
        this.#startRun(event, index, event.data.runId, false);
        return;
      case "run_resumed":
        this.#startRun(event, index, event.data.runId, true);
        return;
      case "model_request":
        this.#startChat(event, index);
        return;
      case "model_response":
        this.#endChat(event);
        return;
      case "model_retry":
        this.#note(this.#chat, event, "nous.model_retry", {
          "nous.attempt": event.data.attempt,
          "error.type": event.data.error.code,
          "nous.delay_ms": event.data.delayMs,
        });
        return;
      case "model_fallback":
        // The request's provider from here on is the next model's.
        if (this.#chat !== undefined) {
          this.#chat.attributes["gen_ai.provider.name"] = modelParts(event.data.to, event.data.wire).provider;
        }
        this.#note(this.#chat, event, "nous.model_fallback", {
          "nous.from": event.data.from,
          "nous.to": event.data.to,
          "error.type": event.data.error.code,
        });
        return;
      case "model_stream_reset":
        this.#note(this.#chat, event, "nous.model_stream_reset", { "nous.reason": event.data.reason });
        return;
      case "partial_response":
        this.#partial(event);
        return;
      case "assistant_message":
        if (answered !== undefined && this.#capture) {
          answered.span.attributes["gen_ai.output.messages"] = outputMessages(
            event.data.content,
            answered.finishReason,
          );
        }
        return;
      case "tool_call":
        this.#startTool(event);
        return;
      case "tool_result":
        this.#endTool(event, event.data.toolCallId, event.data.toolName, event.data.result, event.data.isError);
        return;
      case "tool_call_result":
        this.#endTool(event, event.data.toolCallId, event.data.toolName, event.data.result, event.data.isError);
        return;
      case "tool_call_refused": {
        const span = this.#openTool(event, event.data.toolCallId, event.data.toolName, event.data.parentToolCallId);
        if (this.#capture) span.attributes["gen_ai.tool.call.arguments"] = contentJson(event.data.args);
        failSpan(span, "tool_call_refused", contentJson(event.data.error));
        this.#tools.delete(event.data.toolCallId);
        return;
      }
      case "tool_call_abandoned":
        // Recorded as a new run or resume begins, before its start: the interrupted run ended
        // earlier (its call stays unfinished there), and the next run's span tells the abandonment.
        this.endRun(this.#lastAt, "interrupted");
        this.#note(undefined, event, "nous.tool_call_abandoned", {
          "gen_ai.tool.name": event.data.toolName,
          "gen_ai.tool.call.id": event.data.toolCallId,
        });
        return;
      case "agent_changed":
        this.endRun(this.#lastAt, "interrupted");
        return;
      case "context_update":
        // The initial update is recorded before its run starts.
        if (event.data.origin === "initial") this.endRun(this.#lastAt, "interrupted");
        return;
      case "approval_requested":
        this.#note(
          this.#callSpan(event.data.toolCallId, event.data.parentToolCallId),
          event,
          "nous.approval_requested",
          {
            "gen_ai.tool.name": event.data.toolName,
            "gen_ai.tool.call.id": event.data.toolCallId,
          },
        );
        return;
      case "approval_decided":
        this.#note(this.#tools.get(event.data.toolCallId) ?? this.#run, event, "nous.approval_decided", {
          "gen_ai.tool.call.id": event.data.toolCallId,
          "nous.approved": event.data.approved,
        });
        return;
      case "run_completed":
        this.endRun(event.at, "completed");
        return;
      case "run_paused":
        this.endRun(event.at, "paused");
        return;
      case "run_failed": {
        const { code, message } = event.data.error;
        // What was still open failed with the run: a model request that got no answer, a call that never returned.
        for (const span of this.#openSpans()) failSpan(span, code, message);
        if (this.#run !== undefined) failSpan(this.#run, code, message);
        this.endRun(event.at, "failed");
        return;
      }
      case "provider_tool_call":
      case "provider_tool_result":
        // Ran at the provider within the answer just recorded: an event of the run, not a span of its own.
        this.#note(this.#run, event, `nous.${event.type}`, {
          "gen_ai.tool.name": event.data.toolName,
          "gen_ai.tool.call.id": event.data.toolCallId,
          ...(event.type === "provider_tool_result"
            ? { "nous.is_error": event.data.isError, "nous.source_count": event.data.sources?.length ?? 0 }
            : {}),
        });
        return;
      case "provider_sources":
        this.#note(this.#run, event, "nous.provider_sources", { "nous.source_count": event.data.sources.length });
        return;
      case "user_message":
      case "system_message":
      case "tool_definitions":
      case "compaction":
        return;
      default: {
        const unhandled: never = event;
        throw new TypeError(`unknown event ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /** Closes the open run at `at`, with whatever is still open in it marked unfinished. */
  endRun(at: string, outcome: RunOutcome): void {
    const run = this.#run;
    if (run === undefined) return;
    for (const span of this.#openSpans()) {
      span.end = at;
      span.attributes["nous.unfinished"] = true;
    }
    this.#chat = undefined;
    this.#tools.clear();
    run.end = at;
    run.attributes["nous.run.outcome"] = outcome;
    this.#run = undefined;
  }

  /** Where an event about a call goes: the call's span, else its parent call's (a nested call asking approval), else the run's. */
  #callSpan(toolCallId: string, parentToolCallId?: string): PlannedSpan | undefined {
    const parent = parentToolCallId === undefined ? undefined : this.#tools.get(parentToolCallId);
    return this.#tools.get(toolCallId) ?? parent ?? this.#run;
  }

  #openSpans(): PlannedSpan[] {
    return [...(this.#chat === undefined ? [] : [this.#chat]), ...this.#tools.values()];
  }

  #startRun(event: SessionEvent, index: number, runId: string, resumed: boolean): void {
    this.endRun(this.#lastAt, "interrupted");
    const agent = this.#agents.get(runId);
    const span = plannedSpan(agent === undefined ? "invoke_agent" : `invoke_agent ${agent}`, "internal", event.at, {
      "gen_ai.operation.name": "invoke_agent",
      ...(agent === undefined ? {} : { "gen_ai.agent.name": agent }),
      ...(this.#sessionId === undefined
        ? {}
        : { "gen_ai.conversation.id": this.#sessionId, "nous.session.id": this.#sessionId }),
      "nous.run.id": runId,
      "nous.seq": event.seq,
    });
    if (event.type === "run_started") {
      const data = (event as EventOf<"run_started">).data;
      if (data.model !== undefined) span.attributes["gen_ai.provider.name"] = modelParts(data.model).provider;
      if (data.agentHash !== undefined) span.attributes["nous.agent.hash"] = data.agentHash;
    }
    if (resumed) span.attributes["nous.run.resumed"] = true;
    span.events.push(...this.#betweenRuns);
    this.#betweenRuns = [];
    this.#run = span;
    this.runs.push({ runId, index, span });
  }

  #startChat(event: EventOf<"model_request">, index: number): void {
    const run = this.#run;
    if (run === undefined) return;
    const data = event.data;
    const { provider, model } = modelParts(data.model, data.wire);
    const span = plannedSpan(`chat ${model}`, "client", event.at, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": model,
      ...settingsAttributes(data.settings),
      "nous.seq": event.seq,
      "nous.iteration": data.iteration,
    });
    if (data.stream !== undefined) span.attributes["nous.stream"] = data.stream;
    if (this.#capture) {
      const messages = data.messages ?? windowMessages(this.#events, data.window ?? [], index);
      span.attributes["gen_ai.input.messages"] = inputMessages(messages);
      if (data.instructions !== undefined) {
        span.attributes["gen_ai.system_instructions"] = systemInstructions(data.instructions);
      }
    }
    run.children.push(span);
    this.#chat = span;
  }

  #endChat(event: EventOf<"model_response">): void {
    const span = this.#chat;
    if (span === undefined) return;
    const data = event.data;
    const reason = finishReason(data.finishReason);
    span.end = event.at;
    Object.assign(span.attributes, {
      "gen_ai.response.model": responseModel(data.model),
      ...(data.responseId === undefined ? {} : { "gen_ai.response.id": data.responseId }),
      "gen_ai.response.finish_reasons": [reason],
      ...usageAttributes(data.usage),
      ...costAttributes(data.cost),
    });
    if (data.finishReason === "error") failSpan(span, "model_error");
    this.#chat = undefined;
    this.#answered = { span, finishReason: reason };
  }

  #partial(event: EventOf<"partial_response">): void {
    const span = this.#chat;
    if (span === undefined) return;
    span.end = event.at;
    span.attributes["nous.partial"] = event.data.reason;
    if (event.data.reason === "failed") {
      failSpan(span, event.data.error?.code ?? "model_failed", event.data.error?.message);
    }
    if (this.#capture) {
      span.attributes["gen_ai.output.messages"] = contentJson([
        { role: "assistant", parts: [{ type: "text", content: event.data.output.text }] },
      ]);
    }
    this.#chat = undefined;
  }

  #startTool(event: EventOf<"tool_call">): void {
    const { toolCallId, toolName, args, parentToolCallId } = event.data;
    const span = this.#openTool(event, toolCallId, toolName, parentToolCallId);
    if (event.data.rerun === true) span.attributes["nous.rerun"] = true;
    if (this.#capture) span.attributes["gen_ai.tool.call.arguments"] = contentJson(args);
  }

  /** A new `execute_tool` span, in its parent call's span (a nested call) or the run's. */
  #openTool(event: SessionEvent, toolCallId: string, toolName: string, parentToolCallId?: string): PlannedSpan {
    const span = plannedSpan(`execute_tool ${toolName}`, "internal", event.at, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": toolName,
      "gen_ai.tool.call.id": toolCallId,
      "gen_ai.tool.type": "function",
      "nous.seq": event.seq,
    });
    if (parentToolCallId !== undefined) span.attributes["nous.parent_tool_call.id"] = parentToolCallId;
    const parent = (parentToolCallId === undefined ? undefined : this.#tools.get(parentToolCallId)) ?? this.#run;
    parent?.children.push(span);
    this.#tools.set(toolCallId, span);
    const spans = this.toolSpans.get(toolCallId) ?? [];
    spans.push(span);
    this.toolSpans.set(toolCallId, spans);
    return span;
  }

  /**
   * Closes a call's span with its result. A result with no open call (its call was refused before
   * running, or began in an earlier run) gets a span of its own, at the result's time.
   */
  #endTool(event: SessionEvent, toolCallId: string, toolName: string, result: unknown, isError: boolean): void {
    if (this.#run === undefined) return;
    const parentToolCallId = (event.data as { parentToolCallId?: string }).parentToolCallId;
    const span = this.#tools.get(toolCallId) ?? this.#openTool(event, toolCallId, toolName, parentToolCallId);
    span.end = event.at;
    if (isError) failSpan(span, "tool_error");
    if (this.#capture) span.attributes["gen_ai.tool.call.result"] = contentJson(result);
    this.#tools.delete(toolCallId);
  }

  #note(span: PlannedSpan | undefined, event: SessionEvent, name: string, attributes: PlannedSpan["attributes"]): void {
    const note = { name, at: event.at, attributes: { ...attributes, "nous.seq": event.seq } };
    if (span !== undefined) span.events.push(note);
    else if (this.#run === undefined) this.#betweenRuns.push(note);
  }
}
