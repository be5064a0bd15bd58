import type { StreamedLogEvent } from "../runner/agent-stream-event.js";
import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import { UIChunkMapper } from "./ui-chunk-mapper.js";
import { assistantMessageId, type UIMessage, type UIMessagePart, userMessageId } from "./ui-message-chunk.js";
import { UIMessageReducer } from "./ui-message-reducer.js";

/**
 * A session's conversation as `useChat` messages, rebuilt from its log: each `user_message` and the
 * assistant message answering it (its steps, text, reasoning, tool calls with results, approval
 * requests and context updates) — the same parts the live stream builds. Pass it as the `Chat`'s
 * initial `messages` on a reload, then `chat.resumeStream()` to follow a run still going.
 *
 * @example
 * const messages = await sessionToUIMessages(store, "u42");
 * const chat = new Chat({ id: "u42", messages, transport });
 */
export async function sessionToUIMessages(store: SessionStore, sessionId: string): Promise<UIMessage[]> {
  return uiMessagesFromEvents(await store.read(sessionId));
}

/**
 * `sessionToUIMessages` for events already read.
 *
 * @example
 * const messages = uiMessagesFromEvents(result.log);
 */
export function uiMessagesFromEvents(events: readonly SessionEvent[]): UIMessage[] {
  const messages: UIMessage[] = [];
  let turn: SessionEvent[] | undefined;
  let userSeq = 0;
  const flush = () => {
    if (turn !== undefined) messages.push(assistantMessage(userSeq, turn));
  };
  for (const event of events) {
    if (event.type === "user_message") {
      flush();
      userSeq = event.seq;
      messages.push({ id: userMessageId(event.seq), role: "user", parts: userParts(event.data) });
      turn = [];
    } else turn?.push(event);
  }
  flush();
  return messages.filter((message) => message.role === "user" || message.parts.length > 0);
}

function userParts(data: unknown): UIMessagePart[] {
  const content = (data as { content: string | readonly { type: string; text?: string }[] }).content;
  const text =
    typeof content === "string"
      ? content
      : content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
  return [{ type: "text", text, state: "done" }];
}

function assistantMessage(userSeq: number, events: readonly SessionEvent[]): UIMessage {
  const mapper = new UIChunkMapper({ cursor: false });
  const reducer = new UIMessageReducer();
  for (const event of events) {
    for (const chunk of mapper.map({ ...event, kind: "event" } as StreamedLogEvent)) reducer.apply(chunk);
    if (event.type !== "approval_decided") continue;
    const { toolCallId, approved, reason } = event.data as { toolCallId: string; approved: boolean; reason?: string };
    reducer.respond(toolCallId, approved, reason);
  }
  return { id: assistantMessageId(userSeq), role: "assistant", parts: reducer.parts };
}
