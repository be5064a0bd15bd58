import { NousError, UserError } from "./nous-error.js";

/** Why a chat request was refused: what the client sent does not fit the session. */
export type ChatRequestProblem =
  | "invalid_body"
  | "unsupported_trigger"
  | "empty_message"
  | "unknown_approval"
  | "no_pending_approval"
  | "invalid_chat_id"
  | "invalid_cursor";

/**
 * A chat request (from `useChat` / `Chat`) that the handler refuses with a 400: a malformed body,
 * a trigger the log cannot honour (`regenerate-message`: the log is append-only), no user text, or
 * approval answers that match no pending approval. Nothing was recorded.
 *
 * @example
 * if (error instanceof ChatRequestError && error.problem === "unknown_approval") console.log(error.message);
 */
export class ChatRequestError extends UserError {
  readonly code = "invalid_chat_request";
  readonly problem: ChatRequestProblem;

  constructor(problem: ChatRequestProblem, message: string) {
    super({ message });
    this.problem = problem;
  }
}

/**
 * A chat request refused with a 409 because the session's run is still streaming: wait for it (or
 * reconnect to it with `GET …/{chatId}/stream`) and send again.
 *
 * @example
 * if (error instanceof ChatRunActiveError) console.log(`busy: ${error.sessionId}`);
 */
export class ChatRunActiveError extends NousError {
  readonly code = "chat_run_active";
  readonly fault = "conflict" as const;
  readonly sessionId: string;

  constructor(sessionId: string) {
    super({ message: `Session "${sessionId}" has a run in progress; reconnect to its stream or wait for it to end` });
    this.sessionId = sessionId;
  }
}
