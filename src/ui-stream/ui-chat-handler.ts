import { type ApprovalTool, decideApproval } from "../approvals/approvals.js";
import { NousError } from "../errors/nous-error.js";
import { ChatRequestError, ChatRunActiveError } from "../errors/ui-chat-errors.js";
import type { AgentStreamEvent, StreamedLogEvent } from "../runner/agent-stream-event.js";
import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";
import { LiveRuns } from "./live-runs.js";
import { uiMessageStreamResponse } from "./to-ui-message-stream.js";
import { type ApprovalAnswer, checkChatId, parseChatRequest, parseCursor } from "./ui-chat-request.js";
import { UIChunkMapper } from "./ui-chunk-mapper.js";
import { assistantMessageId } from "./ui-message-chunk.js";
import { shownApprovalIds, waitingApprovals } from "./waiting-approvals.js";

/**
 * What `uiChatHandler` runs: an `Agent`, or anything with its `stream` and `resumeStream` (wrap an
 * agent whose deps are required: `{ stream: (p, o) => agent.stream(p, { ...o, deps }), … }`).
 */
export interface UIChatAgent {
  stream(
    prompt: string,
    options: { readonly sessionId: string; readonly store: SessionStore },
  ): AsyncIterable<AgentStreamEvent>;
  resumeStream(sessionId: string, options: { readonly store: SessionStore }): AsyncIterable<AgentStreamEvent>;
  /** The agent's tool of that name (checks edited approval arguments); optional. */
  toolNamed?(name: string): ApprovalTool | undefined;
}

/** Options of `uiChatHandler`. */
export interface UIChatHandlerOptions {
  readonly agent: UIChatAgent;
  readonly store: SessionStore;
  /** The session a chat id maps to (default: the chat id itself); authorize the request here, throwing to refuse. */
  readonly sessionId?: (chatId: string, request: Request) => string | Promise<string>;
  /** Sent with each response's `start` chunk. */
  readonly messageMetadata?: unknown;
}

/** The handler `uiChatHandler` returns: a web `Request` in, a `Response` out. */
export type UIChatHandler = (request: Request) => Promise<Response>;

/**
 * An HTTP handler that `useChat` / `Chat` (AI SDK v6, `DefaultChatTransport`) talks to unchanged.
 * `POST` with a new user message starts `agent.stream(text, { sessionId: id, store })`; `POST` with
 * the assistant message carrying approval answers records the decisions and resumes the paused run.
 * `GET …/{chatId}/stream` (`reconnectToStream`) follows the run in flight (204 when none): from
 * the start of its answer, or after a cursor (`?seq=&part=&chars=`, from the `data-nous-cursor`
 * parts) with nothing the client already has. The session log is the history and the buffer: the
 * client's copy of earlier messages is ignored, a reconnect reads committed events from the log and
 * only the answer in flight from memory. Runs go on when a client disconnects. A bad request is a
 * 400 (`ChatRequestError`, nothing recorded); a request while the session's run streams, a 409.
 *
 * @example
 * const chat = uiChatHandler({ agent, store });
 * app.all("/api/chat/*", (c) => chat(c.req.raw)); app.post("/api/chat", (c) => chat(c.req.raw));
 */
export function uiChatHandler(options: UIChatHandlerOptions): UIChatHandler {
  const runs = new LiveRuns();
  const sessionOf = async (chatId: string, request: Request) =>
    options.sessionId === undefined ? chatId : await options.sessionId(chatId, request);
  return async (request) => {
    try {
      if (request.method === "POST") return await send(request);
      const chatId = streamChatId(new URL(request.url).pathname);
      if (request.method === "GET" && chatId !== undefined) return await reconnect(request, chatId);
      return jsonError(request.method === "GET" ? 404 : 405, "not_found", "Not a chat route");
    } catch (error) {
      if (error instanceof ChatRequestError) return jsonError(400, error.code, error.message, error.problem);
      if (error instanceof ChatRunActiveError) return jsonError(409, error.code, error.message);
      throw error;
    }
  };

  async function send(request: Request): Promise<Response> {
    const body: unknown = await request.json().catch(() => {
      throw new ChatRequestError("invalid_body", "The body is not JSON");
    });
    const chat = parseChatRequest(body);
    const sessionId = await sessionOf(chat.chatId, request);
    runs.claim(sessionId);
    try {
      const events = await options.store.read(sessionId);
      const lastSeq = events.at(-1)?.seq ?? 0;
      let mapper: UIChunkMapper;
      let turnFromSeq = lastSeq + 1;
      let stream: AsyncIterable<AgentStreamEvent>;
      if (chat.type === "message") {
        mapper = new UIChunkMapper({ messageMetadata: options.messageMetadata });
        stream = options.agent.stream(chat.text, { sessionId, store: options.store });
      } else {
        const userSeq = events.findLast((event) => event.type === "user_message")?.seq ?? 0;
        await recordAnswers(sessionId, events, chat.answers);
        turnFromSeq = userSeq;
        const denied = chat.answers.filter((answer) => !answer.approved).map((answer) => answer.approvalId);
        mapper = new UIChunkMapper({
          messageId: assistantMessageId(userSeq),
          denied,
          shown: shownApprovalIds(events),
          messageMetadata: options.messageMetadata,
        });
        stream = options.agent.resumeStream(sessionId, { store: options.store });
      }
      const { run, begin } = runs.start(sessionId, turnFromSeq, stream);
      const response = uiMessageStreamResponse(run.connect(mapper, []));
      begin();
      return response;
    } catch (error) {
      runs.release(sessionId);
      throw error;
    }
  }

  /**
   * Checks every answer against the approvals the session's run waits for (its own, its code-mode
   * programs' and its sub-agents'), then records them all. An answer the page sends again for an
   * approval already decided (its part stays answered in an earlier step) is passed over.
   */
  async function recordAnswers(sessionId: string, events: readonly SessionEvent[], all: readonly ApprovalAnswer[]) {
    const pending = await waitingApprovals(options.store, sessionId, events);
    const shown = shownApprovalIds(events);
    const answers = all.filter((answer) => pending.has(answer.approvalId) || !shown.has(answer.approvalId));
    const seen = new Set<string>();
    for (const answer of answers.length === 0 ? all : answers) {
      if (!pending.has(answer.approvalId) || seen.has(answer.approvalId)) {
        throw new ChatRequestError(
          "unknown_approval",
          `Approval "${answer.approvalId}" is not pending in this chat (never requested, or already decided)`,
        );
      }
      seen.add(answer.approvalId);
    }
    const agent =
      options.agent.toolNamed === undefined ? undefined : { toolNamed: options.agent.toolNamed.bind(options.agent) };
    for (const answer of answers) {
      const approval = pending.get(answer.approvalId);
      if (approval === undefined) continue;
      const verdict = answer.approved
        ? ({ type: "approve" } as const)
        : ({ type: "reject", ...(answer.reason === undefined ? {} : { reason: answer.reason }) } as const);
      try {
        await decideApproval(options.store, approval, verdict, agent === undefined ? {} : { agent });
      } catch (error) {
        if (NousError.isInstance(error) && error.fault === "user")
          throw new ChatRequestError("unknown_approval", error.message);
        throw error;
      }
    }
  }

  async function reconnect(request: Request, rawChatId: string): Promise<Response> {
    const chatId = checkChatId(rawChatId);
    const cursor = parseCursor(new URL(request.url).searchParams);
    const sessionId = await sessionOf(chatId, request);
    if (runs.get(sessionId) === undefined && cursor === undefined) return new Response(null, { status: 204 });
    const events = await options.store.read(sessionId);
    // From here to `connect` nothing awaits: the snapshot and the subscription see the same run state.
    const live = runs.get(sessionId);
    const logSeq = events.at(-1)?.seq ?? 0;
    const units: AgentStreamEvent[] = events.map((event) => ({ ...event, kind: "event" }) as StreamedLogEvent);
    if (live !== undefined) units.push(...live.uncommitted(logSeq));
    const turnFrom =
      live?.turnFromSeq ?? events.findLast((event) => event.type === "user_message")?.seq ?? Number.POSITIVE_INFINITY;
    const turn = units.filter((unit) => unit.kind !== "event" || unit.seq >= turnFrom);
    if (live === undefined && !turn.some((unit) => unit.kind === "event" && unit.seq > (cursor?.seq ?? 0))) {
      return new Response(null, { status: 204 });
    }
    const mapper = new UIChunkMapper({
      ...(cursor === undefined ? {} : { skip: cursor }),
      messageMetadata: options.messageMetadata,
    });
    if (live !== undefined) return uiMessageStreamResponse(live.connect(mapper, turn));
    const replay = new ReadableStream({
      start(controller) {
        for (const unit of turn) for (const chunk of mapper.map(unit)) controller.enqueue(chunk);
        for (const chunk of mapper.start()) controller.enqueue(chunk);
        controller.close();
      },
    });
    return uiMessageStreamResponse(replay);
  }
}

/** The chat id of a reconnect path `…/{chatId}/stream`, if it is one. */
function streamChatId(pathname: string): string | undefined {
  const match = /\/([^/]+)\/stream\/?$/.exec(pathname);
  if (match?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

function jsonError(status: number, code: string, message: string, problem?: string): Response {
  return new Response(JSON.stringify({ error: { code, message, ...(problem === undefined ? {} : { problem }) } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
