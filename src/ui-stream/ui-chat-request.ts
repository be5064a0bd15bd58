import { z } from "zod";
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

const messageSchema = z.object({
  role: z.enum(["user", "assistant", "system"]),
  parts: z.array(z.looseObject({ type: z.string() })),
});

/** The body `DefaultChatTransport.sendMessages` posts (`id`, `messages`, `trigger`, `messageId`, plus `body` extras). */
const bodySchema = z.looseObject({
  id: z.string(),
  messages: z.array(messageSchema).min(1),
  trigger: z.string(),
  messageId: z.string().optional(),
});

const answerSchema = z.object({
  state: z.literal("approval-responded"),
  approval: z.object({ id: z.string().min(1), approved: z.boolean(), reason: z.string().optional() }),
});

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
 */
export function parseChatRequest(body: unknown): ChatRequest {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ChatRequestError("invalid_body", `Not a chat request: ${z.prettifyError(parsed.error)}`);
  }
  const { id, messages, trigger } = parsed.data;
  const chatId = checkChatId(id);
  if (trigger !== "submit-message") {
    throw new ChatRequestError(
      "unsupported_trigger",
      `Trigger "${trigger}" is not supported: a session's log is append-only, send a new message instead`,
    );
  }
  const last = messages[messages.length - 1] as z.infer<typeof messageSchema>;
  if (last.role === "user") {
    const text = last.parts
      .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
      .join("");
    if (text.trim() === "") throw new ChatRequestError("empty_message", "The user message has no text");
    return { type: "message", chatId, text };
  }
  if (last.role !== "assistant") {
    throw new ChatRequestError("invalid_body", "The last message must be the user's or the assistant's");
  }
  const answers: ApprovalAnswer[] = [];
  for (const part of last.parts) {
    if (!(part.type.startsWith("tool-") || part.type === "dynamic-tool") || part.state !== "approval-responded")
      continue;
    const answer = answerSchema.safeParse(part);
    if (!answer.success) {
      throw new ChatRequestError("invalid_body", `Not an approval answer: ${z.prettifyError(answer.error)}`);
    }
    const { id: approvalId, approved, reason } = answer.data.approval;
    answers.push({ approvalId, approved, ...(reason === undefined || reason === "" ? {} : { reason }) });
  }
  if (answers.length === 0) {
    throw new ChatRequestError("no_pending_approval", "The assistant message answers no approval request");
  }
  return { type: "approvals", chatId, answers };
}

/** Reads a reconnect cursor from `seq`, `part` and `chars` query parameters: all three, or none (`undefined`). */
export function parseCursor(params: URLSearchParams): UIStreamCursor | undefined {
  const values = ["seq", "part", "chars"].map((name) => params.get(name));
  if (values.every((value) => value === null)) return undefined;
  const numbers = values.map((value) => (value !== null && /^-?\d{1,15}$/.test(value) ? Number(value) : Number.NaN));
  const [seq = Number.NaN, part = Number.NaN, chars = Number.NaN] = numbers;
  if (!(seq >= 0 && part >= -1 && chars >= 0)) {
    throw new ChatRequestError("invalid_cursor", "A cursor is seq >= 0, part >= -1 and chars >= 0, all integers");
  }
  return { seq, part, chars };
}
