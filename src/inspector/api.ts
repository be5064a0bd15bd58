/**
 * The inspector's JSON API over a session store: sessions, events, the state at an event, requests,
 * totals, live events (server-sent events), approval decisions and forks. Built on the public API.
 */

import type { Context, Hono, MiddlewareHandler } from "hono";
import {
  type AgentIdentity,
  ApprovalMismatchError,
  type ApprovalVerdict,
  agentMismatch,
  type DecideApprovalOptions,
  decideApproval,
  getLogger,
  identifierProblem,
  listPendingApprovals,
  loadPricesIfNeeded,
  NousError,
  pendingApprovalsOf,
  SESSION_STATUSES,
  type SessionEvent,
  type SessionStatus,
  type SessionStore,
  type SessionSummary,
  sessionUsage,
} from "../index.js";
import { requestStats, sessionTotals, stateAt } from "./analysis.js";
import { EventCache } from "./event-cache.js";
import { hono } from "./hono.js";
import { requestDetail } from "./request-detail.js";

/** What the API needs besides the store. */
export interface InspectorApiOptions {
  readonly store: SessionStore;
  readonly resume?: (sessionId: string) => Promise<void>;
  /**
   * The agent `resume` continues sessions with: its tools' schemas check edited approval arguments,
   * and with `resume`, a decision for a session another agent ran (see `Agent.identity`) is refused
   * (409) before it is recorded.
   */
  readonly agent?: NonNullable<DecideApprovalOptions["agent"]> & { readonly identity?: AgentIdentity };
  /** How often a live stream polls the store for new events (default 250 ms). */
  readonly pollMs?: number;
  /** Ends live streams when the server closes. */
  readonly signal: AbortSignal;
}

const STATUSES = new Set<string>(SESSION_STATUSES);

const MAX_MESSAGE = 500;

/** Input echoed in an error, shortened so an error never carries a request's whole payload. */
function echo(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function problem(c: Context, status: 400 | 404 | 409 | 500, message: string): Response {
  return c.json({ error: echo(message, MAX_MESSAGE) }, status);
}

function errorStatus(error: unknown): 400 | 404 | 409 | 500 {
  if (error instanceof ApprovalMismatchError) return 409;
  if (NousError.isInstance(error)) {
    const code = (error as NousError).code;
    if (code.includes("not_found")) return 404;
    if (code.includes("exists") || code.includes("conflict") || code === "lease_lost") return 409;
    return 400;
  }
  return 500;
}

/** The totals of a session: usage and cost with its sub-agent sessions counted once (`sessionUsage`). */
async function totalsOf(store: SessionStore, sessionId: string, events: readonly SessionEvent[]) {
  return sessionTotals(events, await sessionUsage(store, sessionId, events));
}

/** A session's summary with what the list and the header show: usage, cost, pending approvals. */
async function sessionView(store: SessionStore, summary: SessionSummary, events: readonly SessionEvent[]) {
  return {
    ...summary,
    totals: await totalsOf(store, summary.sessionId, events),
    pendingApprovals: pendingApprovalsOf(summary.sessionId, events),
  };
}

/** Everything the page shows about a session, from its events. */
async function sessionDetail(store: SessionStore, summary: SessionSummary, events: readonly SessionEvent[]) {
  return {
    ...(await sessionView(store, summary, events)),
    events,
    requests: requestStats(events, await loadPricesIfNeeded(events)),
  };
}

function parseSeq(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/**
 * Why the inspector must not decide for this session: it resumes sessions with an agent that is not
 * the one the session's log names (the decision would be used up by the wrong agent).
 */
function foreignAgent(sessionId: string, events: readonly SessionEvent[], options: InspectorApiOptions) {
  const identity = options.agent?.identity;
  if (options.resume === undefined || identity === undefined) return undefined;
  const mismatch = agentMismatch(sessionId, events, identity);
  if (mismatch === undefined) return undefined;
  const name = (agent: AgentIdentity) =>
    `${agent.name === undefined ? "an unnamed agent" : `agent "${agent.name}"`}${agent.hash === undefined ? "" : ` (definition ${agent.hash.slice(0, 12)})`}`;
  return `Session "${sessionId}" was run by ${name(mismatch.recorded)}, but this inspector resumes sessions with ${name(mismatch.given)}: start the inspector with the agent that ran it (nous inspect --agent FILE). Nothing was recorded.`;
}

/** The inspector's API routes, mounted under `/api`. */
export function inspectorApi(options: InspectorApiOptions): Hono {
  const { store } = options;
  const pollMs = options.pollMs ?? 250;
  const api = new hono.Hono();
  // What the pages show reads through the cache; approvals read the store itself.
  const cache = new EventCache(store);
  const read = (sessionId: string) => cache.read(sessionId);

  api.onError((error, c) => {
    const status = errorStatus(error);
    if (status === 500) getLogger().error(`inspector: ${error instanceof Error ? error.stack : String(error)}`);
    return problem(c, status, error instanceof Error ? error.message : String(error));
  });

  // Every route naming a session checks its id first (length, characters), as the stores do.
  const checkSessionId: MiddlewareHandler = async (c, next) => {
    const problemText = identifierProblem(c.req.param("id"));
    if (problemText !== undefined) return problem(c, 400, `Invalid session id: it ${problemText}`);
    await next();
  };
  api.use("/sessions/:id", checkSessionId);
  api.use("/sessions/:id/*", checkSessionId);

  api.get("/sessions", async (c) => {
    const statusText = c.req.query("status");
    const status = statusText ? statusText.split(",").filter((item) => item.length > 0) : [];
    const unknown = status.find((item) => !STATUSES.has(item));
    if (unknown !== undefined) return problem(c, 400, `Unknown status "${echo(unknown)}"`);
    const limitText = c.req.query("limit");
    const limit = limitText === undefined ? 50 : parseSeq(limitText);
    if (limit === undefined || limit < 1 || limit > 1000) return problem(c, 400, "limit must be 1 … 1000");
    const page = await store.list({
      ...(status.length > 0 ? { status: status as SessionStatus[] } : {}),
      ...(c.req.query("search") ? { search: c.req.query("search") } : {}),
      ...(c.req.query("cursor") ? { cursor: c.req.query("cursor") } : {}),
      limit,
    });
    const sessions = await Promise.all(
      page.sessions.map(async (summary) => sessionView(store, summary, await read(summary.sessionId))),
    );
    return c.json({ sessions, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) });
  });

  api.get("/sessions/:id", async (c) => {
    const sessionId = c.req.param("id");
    const summary = await store.get(sessionId);
    if (summary === undefined) return problem(c, 404, `No session "${sessionId}"`);
    return c.json(await sessionDetail(store, summary, await read(sessionId)));
  });

  api.get("/sessions/:id/events", async (c) => {
    const sessionId = c.req.param("id");
    if (!(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    const after = parseSeq(c.req.query("after") ?? "0");
    if (after === undefined) return problem(c, 400, "after must be a seq");
    return c.json({ events: await store.read(sessionId, { fromSeq: after + 1 }) });
  });

  api.get("/sessions/:id/state", async (c) => {
    const sessionId = c.req.param("id");
    const seq = parseSeq(c.req.query("seq"));
    if (seq === undefined) return problem(c, 400, "seq must be a non-negative integer");
    const events = await read(sessionId);
    if (events.length === 0 && !(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    const lastText = c.req.query("lastMessages");
    const last = lastText === undefined ? undefined : parseSeq(lastText);
    if (lastText !== undefined && last === undefined) return problem(c, 400, "lastMessages must be a number");
    const state = stateAt(events, seq);
    // `lastMessages`: only the latest messages (the page shows those first); `messageCount` has them all.
    if (last === undefined || state.messages.length <= last)
      return c.json({ ...state, messageCount: state.messages.length });
    return c.json({
      ...state,
      messages: state.messages.slice(state.messages.length - last),
      messageCount: state.messages.length,
    });
  });

  api.get("/sessions/:id/requests", async (c) => {
    const sessionId = c.req.param("id");
    if (!(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    const events = await read(sessionId);
    return c.json({ requests: requestStats(events, await loadPricesIfNeeded(events)) });
  });

  // The request recorded at a model_request (or model_fallback) event, as the model was sent it.
  api.get("/sessions/:id/requests/:seq", async (c) => {
    const sessionId = c.req.param("id");
    const seq = parseSeq(c.req.param("seq"));
    if (seq === undefined) return problem(c, 400, "seq must be a non-negative integer");
    const events = await read(sessionId);
    if (events.length === 0 && !(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    return c.json(requestDetail(events, seq));
  });

  api.get("/sessions/:id/usage", async (c) => {
    const sessionId = c.req.param("id");
    if (!(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    return c.json(await totalsOf(store, sessionId, await read(sessionId)));
  });

  api.get("/sessions/:id/stream", async (c) => {
    const sessionId = c.req.param("id");
    const start = parseSeq(c.req.query("after") ?? "0");
    if (start === undefined) return problem(c, 400, "after must be a seq");
    if (!(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    return hono.streamSSE(c, async (stream) => {
      let after = start;
      const stop = () => stream.abort();
      options.signal.addEventListener("abort", stop, { once: true });
      try {
        await stream.writeSSE({ event: "ready", data: JSON.stringify({ after }) });
        while (!stream.aborted && !options.signal.aborted) {
          const fresh = await store.read(sessionId, { fromSeq: after + 1 });
          if (fresh.length > 0) {
            after = fresh.at(-1)?.seq ?? after;
            const summary = await store.get(sessionId);
            const events = await read(sessionId);
            const detail = summary === undefined ? undefined : await sessionDetail(store, summary, events);
            await stream.writeSSE({
              event: "events",
              id: String(after),
              data: JSON.stringify({ events: fresh, session: detail && { ...detail, events: undefined } }),
            });
          }
          await stream.sleep(pollMs);
        }
      } finally {
        options.signal.removeEventListener("abort", stop);
      }
    });
  });

  api.post("/sessions/:id/approvals/:toolCallId", async (c) => {
    const sessionId = c.req.param("id");
    const toolCallId = c.req.param("toolCallId");
    const body = (await c.req.json().catch(() => undefined)) as
      | { decision?: unknown; argsHash?: unknown; reason?: unknown; args?: unknown }
      | undefined;
    if (body === undefined || (body.decision !== "approve" && body.decision !== "reject")) {
      return problem(c, 400, 'The body must be JSON with decision "approve" or "reject"');
    }
    const pending = (await listPendingApprovals(store, { sessionId })).find((item) => item.toolCallId === toolCallId);
    if (pending === undefined) return problem(c, 409, `No pending approval for ${echo(toolCallId)} in "${sessionId}"`);
    if (typeof body.argsHash !== "string") return problem(c, 400, "argsHash (of the arguments you saw) is required");
    // The root session resumes (a sub-agent's request resumes the child through it): its agent must be the inspector's.
    const rootId = pending.path?.[0]?.sessionId ?? sessionId;
    const mismatch = foreignAgent(rootId, await store.read(rootId), options);
    if (mismatch !== undefined) return problem(c, 409, mismatch);
    const verdict: ApprovalVerdict =
      body.decision === "reject"
        ? { type: "reject", ...(typeof body.reason === "string" && body.reason ? { reason: body.reason } : {}) }
        : body.args !== undefined
          ? { type: "edit", args: body.args }
          : { type: "approve" };
    await decideApproval(store, { ...pending, argsHash: body.argsHash }, verdict, { agent: options.agent });
    const remaining = pendingApprovalsOf(sessionId, await store.read(sessionId)).length;
    const resumed = remaining === 0 && options.resume !== undefined;
    // A sub-agent's request: its root session resumes, and resumes the child.
    const root = pending.path?.[0]?.sessionId ?? sessionId;
    if (resumed) {
      options.resume?.(root).catch((error: unknown) => {
        getLogger().warn(`inspector: resuming "${root}" failed: ${error instanceof Error ? error.message : error}`);
      });
    }
    return c.json({ decided: toolCallId, remaining, resumed, ...(root === sessionId ? {} : { resumedSession: root }) });
  });

  api.post("/sessions/:id/fork", async (c) => {
    const sessionId = c.req.param("id");
    const body = (await c.req.json().catch(() => undefined)) as { atSeq?: unknown } | undefined;
    const atSeq = typeof body?.atSeq === "number" && Number.isInteger(body.atSeq) ? body.atSeq : undefined;
    if (atSeq === undefined || atSeq < 0) return problem(c, 400, "The body must be JSON with an integer atSeq");
    if (!(await store.exists(sessionId))) return problem(c, 404, `No session "${sessionId}"`);
    return c.json({ sessionId: await store.fork(sessionId, { atSeq }) });
  });

  return api;
}
