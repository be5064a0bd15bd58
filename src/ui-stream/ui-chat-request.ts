import { ChatRequestError } from "../errors/ui-chat-errors.js";
import type { UIStreamCursor } from "./ui-message-chunk.js";

/** An answer the page gave to an approval request (a tool part in state `approval-responded`). */
export interface ApprovalAnswer {
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

/** What a chat request asks for: a run for new user text, or the resume of a paused run with answers. */
export type ChatRequest =
  | { readonly type: "message"; readonly chatId: string; readonly text: string }
  | { readonly type: "approvals"; readonly chatId: string; readonly answers: readonly ApprovalAnswer[] };

const MAX_CHAT_ID = 200;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string): ChatRequestError {
  return new ChatRequestError("invalid_body", `Not a chat request: ${message}`);
}

/** A message of the body (`{ role, parts }`), checked by hand: the main entry does not load a schema library. */
function messageOf(value: unknown, index: number): { readonly role: string; readonly parts: readonly Json[] } {
  if (!isObject(value)) throw invalid(`messages[${index}] is not an object`);
  const { role, parts } = value;
  if (role !== "user" && role !== "assistant" && role !== "system") {
    throw invalid(`messages[${index}].role is not "user", "assistant" or "system"`);
  }
  if (!Array.isArray(parts) || !parts.every((part) => isObject(part) && typeof part.type === "string")) {
    throw invalid(`messages[${index}].parts is not a list of parts with a type`);
  }
  return { role, parts: parts as Json[] };
}

/** An approval answer of a tool part (`approval: { id, approved, reason? }`). */
function answerOf(part: Json): ApprovalAnswer {
  const approval = part.approval;
  if (
    !isObject(approval) ||
    typeof approval.id !== "string" ||
    approval.id === "" ||
    typeof approval.approved !== "boolean" ||
    (approval.reason !== undefined && typeof approval.reason !== "string")
  ) {
    throw invalid("an approval-responded tool part needs approval: { id, approved, reason? }");
  }
  const reason = approval.reason as string | undefined;
  return {
    approvalId: approval.id,
    approved: approval.approved,
    ...(reason === undefined || reason === "" ? {} : { reason }),
  };
}

/** Checks a chat id (from a body or a URL): a non-empty string of printable characters, at most 200 long. */
export function checkChatId(chatId: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (chatId.length === 0 || chatId.length > MAX_CHAT_ID || /[\u0000-\u001f\u007f]/.test(chatId)) {
    throw new ChatRequestError("invalid_chat_id", `A chat id is 1 to ${MAX_CHAT_ID} printable characters`);
  }
  return chatId;
}

/**
 * Reads what a `useChat` request asks for. Only the last message counts: the session's log is the
 * history, so the client's copy of earlier messages is ignored. A user message gives its text; an
 * assistant message gives the approval answers of its tool parts. Anything else is a `ChatRequestError`.
 *
 * @example
 * const chat = parseChatRequest(await request.json()); // { type: "message", chatId: "c1", text: "Hi" }
 */
export function parseChatRequest(body: unknown): ChatRequest {
  // The body DefaultChatTransport.sendMessages posts: `id`, `messages`, `trigger`, `messageId`, plus `body` extras.
  if (!isObject(body)) throw invalid("the body is not an object");
  const { id, messages, trigger } = body;
  if (typeof id !== "string") throw invalid("id is not a string");
  if (!Array.isArray(messages) || messages.length === 0) throw invalid("messages is not a non-empty list");
  if (typeof trigger !== "string") throw invalid("trigger is not a string");
  const chatId = checkChatId(id);
  if (trigger !== "submit-message") {
    throw new ChatRequestError(
      "unsupported_trigger",
      `Trigger "${trigger}" is not supported: a session's log is append-only, send a new message instead`,
    );
  }
  const last = messageOf(messages[messages.length - 1], messages.length - 1);
  if (last.role === "user") {
    const text = last.parts
      .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
      .join("");
    if (text.trim() === "") throw new ChatRequestError("empty_message", "The user message has no text");
    return { type: "message", chatId, text };
  }
  if (last.role !== "assistant") throw invalid("the last message must be the user's or the assistant's");
  const answers = last.parts
    .filter(
      (part) =>
        ((part.type as string).startsWith("tool-") || part.type === "dynamic-tool") &&
        part.state === "approval-responded",
    )
    .map(answerOf);
  if (answers.length === 0) {
    throw new ChatRequestError("no_pending_approval", "The assistant message answers no approval request");
  }
  return { type: "approvals", chatId, answers };
}

/**
 * Reads a reconnect cursor from the `seq`, `part` and `chars` query parameters (all three, or none:
 * `undefined`), and `open` ("text" or "reasoning") when the cursor has it.
 *
 * @example
 * parseCursor(new URL(request.url).searchParams); // { seq: 12, part: 0, chars: 40, open: "text" }
 */
export function parseCursor(params: URLSearchParams): UIStreamCursor | undefined {
  const values = ["seq", "part", "chars"].map((name) => params.get(name));
  const open = params.get("open");
  if (values.every((value) => value === null) && open === null) return undefined;
  const numbers = values.map((value) => (value !== null && /^-?\d{1,15}$/.test(value) ? Number(value) : Number.NaN));
  const [seq = Number.NaN, part = Number.NaN, chars = Number.NaN] = numbers;
  if (!(seq >= 0 && part >= -1 && chars >= 0) || (open !== null && open !== "text" && open !== "reasoning")) {
    throw new ChatRequestError(
      "invalid_cursor",
      'A cursor is seq >= 0, part >= -1 and chars >= 0, all integers, and optionally open: "text" or "reasoning"',
    );
  }
  return { seq, part, chars, ...(open === null ? {} : { open }) };
}
