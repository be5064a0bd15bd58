/**
 * The AI SDK "UI message stream" (protocol v1, as `ai` v6's `useChat` / `Chat` read it), the chunks
 * Nous emits. Plain JSON: Nous writes the protocol itself and does not depend on `ai`.
 */

/** Why a response ended, as the UI stream names it. */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

/**
 * Where a client stands in a session's stream: the last log event it has (`seq`) and, inside the
 * model answer in flight after it, the answer's part it is in (`part`, from 0; -1 before any) and
 * how many characters of that part it has (`chars`). Sent after each step of the stream as the
 * transient data part `data-nous-cursor`; a reconnect that sends it back gets only what follows.
 */
export interface UIStreamCursor {
  readonly seq: number;
  readonly part: number;
  readonly chars: number;
  /** Set when that part is text or reasoning and still open on the client. */
  readonly open?: "text" | "reasoning";
}

/** A data part (`data-*`): `transient` ones reach only `onData`, the others join the message. */
export interface UIDataChunk<T extends string = string, D = unknown> {
  readonly type: `data-${T}`;
  readonly id?: string;
  readonly data: D;
  readonly transient?: boolean;
}

/** A session event the UI stream has no part for (a custom `logEvent`, a stream reset), as `data-nous-event`. */
export interface UIEventData {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
}

/** One chunk of the UI message stream, tagged by `type`. */
export type UIMessageChunk =
  | { readonly type: "start"; readonly messageId?: string; readonly messageMetadata?: unknown }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | { readonly type: "reasoning-start"; readonly id: string }
  | { readonly type: "reasoning-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "reasoning-end"; readonly id: string }
  | { readonly type: "tool-input-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly toolCallId: string; readonly inputTextDelta: string }
  | {
      readonly type: "tool-input-available";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  | { readonly type: "tool-approval-request"; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: "tool-output-denied"; readonly toolCallId: string }
  | UIDataChunk<
      "nous-context-update",
      { readonly seq: number; readonly toolCallId?: string; readonly operations: unknown }
    >
  | UIDataChunk<"nous-event", UIEventData>
  | UIDataChunk<"nous-cursor", UIStreamCursor>
  | UIDataChunk<"partial-output", unknown>
  | { readonly type: "error"; readonly errorText: string }
  | { readonly type: "finish"; readonly finishReason?: UIFinishReason; readonly messageMetadata?: unknown };

/** A part of a `UIMessage`, as `sessionToUIMessages` builds them (the subset Nous produces). */
export type UIMessagePart =
  | { readonly type: "step-start" }
  | { readonly type: "text"; readonly text: string; readonly state: "streaming" | "done" }
  | { readonly type: "reasoning"; readonly text: string; readonly state: "streaming" | "done" }
  | UIToolPart
  | { readonly type: `data-${string}`; readonly id?: string; readonly data: unknown };

/** A tool call as a message part (`type: "tool-<name>"`), in the state the stream left it. */
export interface UIToolPart {
  readonly type: `tool-${string}`;
  readonly toolCallId: string;
  readonly state:
    | "input-streaming"
    | "input-available"
    | "approval-requested"
    | "approval-responded"
    | "output-available"
    | "output-error"
    | "output-denied";
  readonly input: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
  readonly approval?: { readonly id: string; readonly approved?: boolean; readonly reason?: string };
}

/** A chat message as `useChat` holds it; pass `sessionToUIMessages`' result as its initial `messages`. */
export interface UIMessage {
  readonly id: string;
  readonly role: "user" | "assistant";
  readonly parts: readonly UIMessagePart[];
  readonly metadata?: unknown;
}

/** The id of the assistant message that answers the user message logged at `userSeq`. */
export function assistantMessageId(userSeq: number): string {
  return `nous-a-${userSeq}`;
}

/** The id of the user message logged at `seq`. */
export function userMessageId(seq: number): string {
  return `nous-u-${seq}`;
}
