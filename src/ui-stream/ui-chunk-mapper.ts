import type { AgentStreamEvent, StreamDelta } from "../runner/agent-stream-event.js";
import { isBuiltinEvent, type SessionEvent } from "../session/events.js";
import { contextUpdateChunk, toolResultChunk } from "./event-chunks.js";
import * as nested from "./nested-approvals.js";
import { partialOutputChunks } from "./partial-output-chunks.js";
import { assistantMessageId, type UIMessageChunk, type UIStreamCursor } from "./ui-message-chunk.js";

/** How `UIChunkMapper` turns a run's events into UI chunks. */
export interface UIChunkMapperOptions {
  /** The assistant message's id; by default derived from the turn's `user_message` when it comes. */
  readonly messageId?: string;
  /** Sent with `start`. */
  readonly messageMetadata?: unknown;
  /** What the client already has: nothing up to it is emitted again (state is still rebuilt from it). */
  readonly skip?: UIStreamCursor;
  /** Tool calls whose approval was rejected before this stream began (their result is `tool-output-denied`). */
  readonly denied?: Iterable<string>;
  /** Code-mode calls whose approval the page was shown before this stream began (their results get output chunks). */
  readonly shown?: Iterable<string>;
  /** Send `data-nous-cursor` after each step of the stream (default true). */
  readonly cursor?: boolean;
  /** Which unmapped log events go out as transient `data-nous-event` (default: custom events and stream resets). */
  readonly forwardEvent?: (event: SessionEvent) => boolean;
}

type SegmentKind = "text" | "reasoning" | "tool";

/** A chunk of a model answer and its place in the answer: which part, and what role it plays there. */
interface Placed {
  readonly chunk: UIMessageChunk;
  readonly part: number;
  readonly role: "start" | "body" | "end";
  /** For a body: the characters of its part before it. */
  readonly from?: number;
}

function defaultForward(event: SessionEvent): boolean {
  return !isBuiltinEvent(event) || event.type === "model_stream_reset";
}

/**
 * Turns an agent stream's units (log events and deltas, in order) into UI message chunks, one unit
 * at a time. Chunks depend only on the units, so two mappers fed the same units agree: a reconnect
 * rebuilds the state from what the client has and emits only what follows (`skip`).
 *
 * @example
 * const mapper = new UIChunkMapper();
 * for await (const unit of agent.stream("Hi")) for (const chunk of mapper.map(unit)) send(chunk);
 */
export class UIChunkMapper {
  readonly #options: UIChunkMapperOptions;
  readonly #denied: Set<string>;
  /** Nested calls shown to the page as tool parts of their own (see `nestedApprovalChunks`). */
  readonly #shown: Set<string>;
  #messageId: string | undefined;
  #started = false;
  #stepOpen = false;
  #stepSeq = 0;
  #streamed = false;
  #part = -1;
  #kind: SegmentKind | undefined;
  #open = false;
  #chars = 0;
  #toolCallId = "";
  #lastSeq = 0;
  /** While true, the deltas of the answer in flight are filtered against `skip`. */
  #skipping: boolean;
  #ended = false;
  /** The text or reasoning part the client has open, until this mapper reaches it (then it closes it itself). */
  #clientOpen: "text" | "reasoning" | undefined;

  constructor(options: UIChunkMapperOptions = {}) {
    this.#options = options;
    this.#messageId = options.messageId;
    this.#denied = new Set(options.denied ?? []);
    this.#shown = new Set(options.shown ?? []);
    this.#skipping = options.skip !== undefined;
    this.#clientOpen = options.skip?.open;
  }

  /** Where a client that received every chunk so far stands. */
  get cursor(): UIStreamCursor {
    const open = this.#open && this.#kind !== "tool" ? this.#kind : undefined;
    return { seq: this.#lastSeq, part: this.#part, chars: this.#chars, ...(open === undefined ? {} : { open }) };
  }

  /** Whether a run end (`run_completed`, `run_paused`, `run_failed`) was mapped. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The chunks for one unit, then (when any) the cursor after it. */
  map(unit: AgentStreamEvent): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    if (unit.kind === "delta") {
      // Deltas before the client's last event are behind it; those right after it are cut by part.
      const behind = this.#options.skip !== undefined && this.#lastSeq < this.#options.skip.seq;
      this.#deltaChunks(unit, behind ? () => {} : this.#filter(chunks));
    } else if (unit.kind === "output") chunks.push(...partialOutputChunks(unit));
    else {
      const skipped = this.#options.skip !== undefined && unit.seq <= this.#options.skip.seq;
      this.#eventChunks(unit, skipped ? () => {} : this.#filter(chunks));
      this.#lastSeq = unit.seq;
      if (unit.type === "user_message" && this.#messageId === undefined) this.#messageId = assistantMessageId(unit.seq);
    }
    if (chunks.length === 0) return chunks;
    const head: UIMessageChunk[] = [];
    if (!this.#started) {
      this.#started = true;
      head.push({
        type: "start",
        ...(this.#messageId === undefined ? {} : { messageId: this.#messageId }),
        ...(this.#options.messageMetadata === undefined ? {} : { messageMetadata: this.#options.messageMetadata }),
      });
    }
    const tail: UIMessageChunk[] =
      this.#options.cursor === false || this.#ended
        ? []
        : [{ type: "data-nous-cursor", data: this.cursor, transient: true }];
    return [...head, ...chunks, ...tail];
  }

  /** The chunks that open the message when nothing else has (a stream that ends with no content). */
  start(): UIMessageChunk[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: "start", ...(this.#messageId === undefined ? {} : { messageId: this.#messageId }) }];
  }

  /** Emits a placed chunk unless the client has it already (see `skip`). */
  #filter(out: UIMessageChunk[]): (placed: Placed) => void {
    const skip = this.#options.skip;
    return (placed) => {
      if (!this.#skipping || skip === undefined || placed.part > skip.part) return void out.push(placed.chunk);
      if (placed.part < skip.part || placed.role === "start") return;
      if (placed.role === "end") return void out.push(placed.chunk);
      const chunk = placed.chunk;
      const from = placed.from ?? 0;
      const cut = skip.chars - from;
      if (chunk.type === "text-delta" || chunk.type === "reasoning-delta") {
        if (cut < chunk.delta.length) out.push({ ...chunk, delta: chunk.delta.slice(Math.max(0, cut)) });
      } else if (chunk.type === "tool-input-delta") {
        if (cut < chunk.inputTextDelta.length)
          out.push({ ...chunk, inputTextDelta: chunk.inputTextDelta.slice(Math.max(0, cut)) });
      } else out.push(chunk);
    };
  }

  #deltaChunks(delta: StreamDelta, emit: (placed: Placed) => void): void {
    this.#streamed = true;
    switch (delta.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = delta.type === "text-delta" ? "text" : "reasoning";
        this.#enter(kind, emit);
        const id = this.#segmentId();
        const chunk: UIMessageChunk =
          kind === "text"
            ? { type: "text-delta", id, delta: delta.text }
            : { type: "reasoning-delta", id, delta: delta.text };
        emit({ chunk, part: this.#part, role: "body", from: this.#chars });
        this.#chars += delta.text.length;
        return;
      }
      case "tool-call-start":
        this.#close(emit);
        this.#nextPart();
        this.#kind = "tool";
        this.#open = true;
        this.#chars = 0;
        this.#toolCallId = delta.toolCallId;
        emit({
          chunk: { type: "tool-input-start", toolCallId: delta.toolCallId, toolName: delta.toolName },
          part: this.#part,
          role: "start",
        });
        return;
      case "tool-call-delta": {
        const chunk: UIMessageChunk = {
          type: "tool-input-delta",
          toolCallId: delta.toolCallId,
          inputTextDelta: delta.argsTextDelta,
        };
        emit({ chunk, part: this.#part, role: "body", from: this.#chars });
        if (delta.toolCallId === this.#toolCallId) this.#chars += delta.argsTextDelta.length;
        return;
      }
      case "tool-call-end":
        if (delta.toolCallId === this.#toolCallId) this.#open = false;
        emit({
          chunk: {
            type: "tool-input-available",
            toolCallId: delta.toolCallId,
            toolName: delta.toolName,
            input: delta.args,
          },
          part: this.#part,
          role: "end",
        });
        return;
      default: {
        const unknown: never = delta;
        throw new Error(`Unknown stream delta ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Opens a text or reasoning part unless one of that kind is open. */
  #enter(kind: "text" | "reasoning", emit: (placed: Placed) => void): void {
    if (this.#open && this.#kind === kind) return;
    this.#close(emit);
    this.#nextPart();
    this.#kind = kind;
    this.#open = true;
    this.#chars = 0;
    const id = this.#segmentId();
    emit({
      chunk: kind === "text" ? { type: "text-start", id } : { type: "reasoning-start", id },
      part: this.#part,
      role: "start",
    });
  }

  /**
   * Closes the part the client has open when this mapper never reached it (a reconnect served from
   * the log, which does not hold the deltas of an answer a reset discarded): where the answer ends.
   */
  #closeClient(emit: (placed: Placed) => void): void {
    const skip = this.#options.skip;
    const kind = this.#clientOpen;
    this.#clientOpen = undefined;
    if (kind === undefined || skip === undefined) return;
    const id = `${kind === "reasoning" ? "r" : "t"}-${this.#stepSeq}-${skip.part}`;
    emit({
      chunk: kind === "text" ? { type: "text-end", id } : { type: "reasoning-end", id },
      part: skip.part,
      role: "end",
    });
  }

  /** A new part begins: once this mapper reaches the client's part, it closes that part itself. */
  #nextPart(): void {
    this.#part++;
    if (this.#part >= (this.#options.skip?.part ?? 0)) this.#clientOpen = undefined;
  }

  /** Closes the open text or reasoning part, if any. */
  #close(emit: (placed: Placed) => void): void {
    if (!this.#open) return;
    this.#open = false;
    const id = this.#segmentId();
    if (this.#kind === "text") emit({ chunk: { type: "text-end", id }, part: this.#part, role: "end" });
    else if (this.#kind === "reasoning") emit({ chunk: { type: "reasoning-end", id }, part: this.#part, role: "end" });
  }

  #segmentId(): string {
    return `${this.#kind === "reasoning" ? "r" : "t"}-${this.#stepSeq}-${this.#part}`;
  }

  #startStep(seq: number, emit: (placed: Placed) => void): void {
    this.#finishStep(emit);
    this.#stepOpen = true;
    this.#stepSeq = seq;
    this.#streamed = false;
    this.#part = -1;
    this.#kind = undefined;
    this.#chars = 0;
    emit(plain({ type: "start-step" }));
  }

  #finishStep(emit: (placed: Placed) => void): void {
    if (!this.#stepOpen) return;
    this.#close(emit);
    this.#closeClient(emit);
    this.#stepOpen = false;
    emit(plain({ type: "finish-step" }));
  }

  #eventChunks(event: SessionEvent, emit: (placed: Placed) => void): void {
    const skip = this.#options.skip;
    if (event.type === "model_request" && skip !== undefined && event.seq > skip.seq) this.#skipping = false;
    if (!isBuiltinEvent(event)) {
      if ((this.#options.forwardEvent ?? defaultForward)(event)) emit(plain(eventData(event)));
      return;
    }
    switch (event.type) {
      case "model_request":
        // A call made for another purpose (a compaction's summary) is no step of the conversation.
        if (event.data.purpose === undefined) this.#startStep(event.seq, emit);
        return;
      case "assistant_message":
        if (!this.#stepOpen) this.#startStep(event.seq, emit);
        if (!this.#streamed) this.#replayAnswer(event.data.content, emit);
        this.#close(emit);
        this.#closeClient(emit);
        if (skip !== undefined && event.seq > skip.seq) this.#skipping = false;
        return;
      case "tool_result":
        emit(plain(toolResultChunk(event, this.#denied)));
        return;
      case "approval_requested":
        if (event.data.parentToolCallId !== undefined) emit(plain(eventData(event)));
        else {
          const { toolCallId } = event.data;
          emit(plain({ type: "tool-approval-request", approvalId: toolCallId, toolCallId }));
        }
        return;
      case "approval_decided":
        if (!event.data.approved) this.#denied.add(event.data.toolCallId);
        return;
      case "context_update": {
        const chunk = contextUpdateChunk(event);
        if (chunk !== undefined) emit(plain(chunk));
        return;
      }
      case "model_stream_reset":
        // The answer restarts: what was sent stays (no chunk takes text back), the new answer gets new parts.
        this.#close(emit);
        this.#closeClient(emit);
        this.#stepSeq = event.seq;
        this.#part = -1;
        this.#chars = 0;
        this.#streamed = false;
        if (skip !== undefined && event.seq > skip.seq) this.#skipping = false;
        if ((this.#options.forwardEvent ?? defaultForward)(event)) emit(plain(eventData(event)));
        return;
      case "run_resumed":
        this.#ended = false;
        return;
      case "run_completed":
        this.#end(emit, { type: "finish", finishReason: "stop" });
        return;
      case "run_paused": {
        // Nested approvals get a step of their own: the page's "all answered" check looks at the last step.
        const approvals = event.data.pending.filter(nested.isNestedApproval);
        if (approvals.length > 0) this.#startStep(event.seq, emit);
        for (const chunk of nested.nestedApprovalChunks(approvals)) emit(plain(chunk));
        for (const approval of approvals) this.#shown.add(nested.uiApprovalId(approval));
        this.#end(emit, { type: "finish", finishReason: "tool-calls" });
        return;
      }
      case "tool_call_result":
      case "tool_call_refused":
        if (this.#shown.has(event.data.toolCallId)) emit(plain(nested.nestedOutputChunk(event, this.#denied)));
        if ((this.#options.forwardEvent ?? defaultForward)(event)) emit(plain(eventData(event)));
        return;
      case "run_failed":
        this.#end(emit, { type: "error", errorText: `${event.data.error.code}: ${event.data.error.message}` });
        return;
      default:
        if ((this.#options.forwardEvent ?? defaultForward)(event)) emit(plain(eventData(event)));
    }
  }

  #end(emit: (placed: Placed) => void, last: UIMessageChunk): void {
    this.#finishStep(emit);
    this.#ended = true;
    emit(plain(last));
  }

  /** A committed answer this mapper saw no deltas of: its content, as the deltas that would have streamed it. */
  #replayAnswer(content: readonly AnswerPart[], emit: (placed: Placed) => void): void {
    for (const part of content) {
      if (part.type === "tool-call") {
        const { toolCallId, toolName, args } = part;
        this.#deltaChunks({ kind: "delta", type: "tool-call-start", toolCallId, toolName }, emit);
        const argsTextDelta = JSON.stringify(args) ?? "null";
        this.#deltaChunks({ kind: "delta", type: "tool-call-delta", toolCallId, argsTextDelta }, emit);
        this.#deltaChunks({ kind: "delta", type: "tool-call-end", toolCallId, toolName, args }, emit);
      } else {
        this.#deltaChunks({ kind: "delta", type: `${part.type}-delta`, text: part.text }, emit);
      }
    }
  }
}

type AnswerPart =
  | { readonly type: "text" | "reasoning"; readonly text: string }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly args: unknown };

/** A chunk outside any part of a model answer: always sent (unless its event is skipped). */
function plain(chunk: UIMessageChunk): Placed {
  return { chunk, part: Number.POSITIVE_INFINITY, role: "end" };
}

function eventData(event: SessionEvent): UIMessageChunk {
  return { type: "data-nous-event", data: { seq: event.seq, type: event.type, data: event.data }, transient: true };
}
