/**
 * The inspector's browser script, the wiring: API calls, the sessions list, routing, the session
 * view, selection, live updates (EventSource), approvals and forks.
 */
import { MAX_IDENTIFIER_LENGTH } from "../index.js";

export const CORE_SCRIPT = String.raw`
const $ = (id) => document.getElementById(id);
const app = { sessionId: undefined, session: undefined, events: [], source: undefined, cursor: undefined };
const view = { selectedSeq: undefined, open: new Set(), fresh: new Set(), hidden: new Set(), timing: new Map(), select: (seq) => selectEvent(seq) };
// Measured in the page (performance.now): opening a session until its timeline is on screen, and a selection.
const timings = (window.__nousTimings = { open: [], select: [] });

async function api(path, init) {
  const response = await fetch("/api" + path, { credentials: "same-origin", ...init });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
  return body;
}

function post(path, body) {
  return api(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

function notify(message) {
  $("notice").textContent = message || "";
}

function sessionPath(id) {
  return "/sessions/" + encodeURIComponent(id);
}

async function loadSessions(append) {
  const query = new URLSearchParams();
  if ($("search").value) query.set("search", $("search").value);
  if ($("status").value) query.set("status", $("status").value);
  if (append && app.cursor) query.set("cursor", app.cursor);
  try {
    const page = await api("/sessions?" + query);
    const list = $("session-list");
    if (!append) list.replaceChildren();
    for (const session of page.sessions) {
      list.append(el("li", { "data-session": session.sessionId, "data-status": session.status }, [
        el("a", { href: "#/s/" + encodeURIComponent(session.sessionId), "aria-current": session.sessionId === app.sessionId ? "true" : "false" }, [
          el("div", { className: "id", text: session.sessionId }),
          el("div", { className: "meta" }, [
            el("span", { className: "status status-" + session.status, text: session.status.replace("_", " ") }),
            " " + [session.agent, session.model].filter(Boolean).join(" · "),
          ]),
          el("div", { className: "meta", text: session.eventCount + " events · " + session.totals.usage.totalTokens + " tokens · " + formatCost(session.totals.cost) }),
        ]),
      ]));
    }
    if (page.sessions.length === 0 && !append) list.append(el("li", { className: "muted", text: "No sessions match." }));
    app.cursor = page.nextCursor;
    $("more").hidden = !page.nextCursor;
  } catch (error) {
    notify("Could not list sessions: " + error.message);
  }
}

function renderHead(session) {
  const usage = session.totals.usage;
  return el("div", { className: "session-head", id: "session-head" }, [
    el("h2", { text: session.sessionId }),
    el("div", { className: "meta" }, [
      el("span", { className: "status status-" + session.status, id: "session-status", "data-status": session.status, text: session.status.replace("_", " ") }),
      " " + [session.agent && "agent " + session.agent, session.model && "model " + session.model].filter(Boolean).join(" · "),
      parentRun() && el("span", {}, [" · sub-agent of ", el("a", { id: "parent-link", href: parentCallHref(parentRun().data), text: parentRun().data.parentSessionId + (parentRun().data.parentToolCallId ? ", call " + parentRun().data.parentToolCallId : "") })]),
      session.parentSessionId && el("span", {}, [" · forked from ", el("a", { href: "#/s/" + encodeURIComponent(session.parentSessionId), text: session.parentSessionId }), " at #" + session.forkedAtSeq]),
    ]),
    el("div", { className: "totals", id: "totals" }, [
      el("div", {}, [el("b", { text: String(usage.requests) }), "requests"]),
      el("div", {}, [el("b", { text: String(usage.inputTokens) }), "input tokens"]),
      el("div", {}, [el("b", { text: String(usage.outputTokens) }), "output tokens"]),
      el("div", {}, [el("b", { text: String(usage.toolCalls) }), "tool calls"]),
      el("div", {}, [el("b", { id: "cost", text: formatCost(session.totals.cost) + (session.totals.costPartial ? "+" : "") }), "cost (USD)"]),
      el("div", {}, [el("b", { text: session.totals.surfaceEvents + " / " + session.totals.bookkeepingEvents }), "surface / bookkeeping"]),
    ]),
    session.totals.subAgents.length > 0 && el("div", { className: "meta", id: "sub-agents" }, [
      "Totals include sub-agents (own: " + session.totals.ownUsage.totalTokens + " tokens): ",
      ...session.totals.subAgents.flatMap((child, index) => [
        index > 0 ? " · " : "",
        el("a", { href: "#/s/" + encodeURIComponent(child.sessionId), text: child.sessionId }),
        " " + child.usage.totalTokens + " tokens",
      ]),
    ]),
  ]);
}

function renderApprovals(session) {
  if (session.pendingApprovals.length === 0) return el("div", { id: "approvals" });
  return el("section", { className: "panel approvals", id: "approvals", "aria-label": "Pending approvals" }, [
    el("h3", { text: "Pending approvals" }),
    ...session.pendingApprovals.map((approval) => {
      const edited = el("textarea", { rows: 2, "aria-label": "Edited arguments for " + approval.toolName + " (JSON, optional)", placeholder: "Edited arguments (JSON, optional)" });
      const reason = el("input", { type: "text", "aria-label": "Reason for rejecting " + approval.toolName, placeholder: "Reason (when rejecting)" });
      const decide = async (decision, button) => {
        button.disabled = true;
        const body = { decision, argsHash: approval.argsHash };
        try {
          if (decision === "approve" && edited.value.trim()) body.args = JSON.parse(edited.value);
          if (decision === "reject" && reason.value.trim()) body.reason = reason.value.trim();
          const result = await post(sessionPath(app.sessionId) + "/approvals/" + encodeURIComponent(approval.toolCallId), body);
          notify(result.resumed ? "Decided; the run continues." : result.remaining > 0 ? result.remaining + " approval(s) still pending." : "Decided.");
        } catch (error) {
          button.disabled = false;
          notify("Decision failed: " + error.message);
        }
      };
      const approve = el("button", { type: "button", className: "primary", "aria-label": "Approve " + approval.toolName + " (" + approval.toolCallId + ")", text: "Approve" });
      const reject = el("button", { type: "button", className: "danger", "aria-label": "Reject " + approval.toolName + " (" + approval.toolCallId + ")", text: "Reject" });
      approve.addEventListener("click", () => decide("approve", approve));
      reject.addEventListener("click", () => decide("reject", reject));
      return el("div", { className: "approval", "data-call": approval.toolCallId }, [
        el("div", {}, [el("b", { text: approval.toolName }), " " + approval.toolCallId + " · requested " + approval.requestedAt]),
        el("pre", { text: json(approval.args) }),
        edited,
        el("div", { className: "actions" }, [approve, reject, reason]),
      ]);
    }),
  ]);
}

function parentRun() {
  return app.events.find((event) => event.type === "run_started" && typeof event.data?.parentSessionId === "string");
}

function renderSession() {
  const session = app.session;
  view.timing = eventTiming(app.events);
  const stateHead = el("div", { className: "state-head" }, [
    el("h3", { id: "state-title", text: view.selectedSeq === undefined ? "State" : "State at event #" + view.selectedSeq }),
    el("button", { type: "button", id: "fork", disabled: view.selectedSeq === undefined, "aria-label": "Fork the session at the selected event", text: "Fork at this event", onclick: forkHere }),
  ]);
  const main = $("main");
  main.replaceChildren(
    renderHead(session),
    renderRunBanner(app.events),
    renderApprovals(session),
    el("section", { className: "panel chart", id: "chart", "aria-label": "Tokens and latency per request" }, [el("h3", { text: "Tokens and latency per request" }), renderChart(session.requests)]),
    el("div", { className: "split" }, [
      el("section", { className: "panel", id: "timeline-panel", "aria-label": "Events" }),
      el("section", { className: "panel state", id: "state", "aria-label": "State at the selected event" }, [
        stateHead,
        el("div", { id: "event-detail" }),
        view.selectedSeq === undefined ? el("p", { className: "muted", id: "state-body", text: "Select an event to see the messages and deps at that point." }) : el("div", { id: "state-body" }),
      ]),
    ]),
  );
  renderTimelinePanel();
  if (view.selectedSeq !== undefined) selectEvent(view.selectedSeq);
}

/** The filter chips and the timeline of the events they let through; keeps the selection. */
function renderTimelinePanel() {
  const shown = view.hidden.size === 0 ? app.events : app.events.filter((event) => !view.hidden.has(event.type));
  const scrolled = $("timeline-scroll")?.scrollTop;
  const count = shown.length === app.events.length ? app.events.length + " events" : shown.length + " of " + app.events.length + " events";
  $("timeline-panel").replaceChildren(
    el("h3", { id: "timeline-title", text: "Timeline (" + count + ")" }),
    renderTypeFilter(app.events, view, () => {
      renderTimelinePanel();
      if (view.selectedSeq !== undefined) showDetail(view.selectedSeq);
    }),
    renderTimeline(shown, view),
  );
  if (view.timeline) {
    // A re-render (live events, a filter) keeps the place the user scrolled to.
    if (scrolled !== undefined) $("timeline-scroll").scrollTop = scrolled;
    view.timeline.draw(true);
    if (view.selectedSeq !== undefined) view.timeline.reveal(view.selectedSeq);
  }
}

async function loadState(seq) {
  try {
    const path = sessionPath(app.sessionId) + "/state?seq=" + seq;
    const state = await api(path + "&lastMessages=" + MESSAGES_SHOWN);
    if (view.selectedSeq !== seq) return;
    $("state-body").replaceWith(renderState(state, async () => (await api(path)).messages));
  } catch (error) {
    notify("Could not load the state: " + error.message);
  }
}

async function loadRequest(seq) {
  try {
    const detail = await api(sessionPath(app.sessionId) + "/requests/" + seq);
    if (view.selectedSeq !== seq || !$("request-detail")) return;
    $("request-detail").replaceWith(renderRequest(detail));
  } catch (error) {
    if (view.selectedSeq === seq && $("request-detail")) $("request-detail").replaceWith(el("p", { id: "request-detail", className: "notice-inline", text: "Could not resolve the request: " + error.message }));
  }
}

function showDetail(seq) {
  const event = app.events.find((item) => item.seq === seq);
  if (!event || !$("event-detail")) return;
  $("event-detail").replaceWith(renderEventDetail(event, view));
  if (event.type === "model_request" || event.type === "model_fallback") loadRequest(seq);
}

function selectEvent(seq) {
  const started = performance.now();
  view.selectedSeq = seq;
  for (const item of document.querySelectorAll("#timeline .event")) {
    const on = Number(item.dataset.seq) === seq;
    item.classList.toggle("selected", on);
    item.querySelector(":scope > .row .select").setAttribute("aria-pressed", on ? "true" : "false");
  }
  if (view.timeline) view.timeline.reveal(seq);
  $("state-title").textContent = "State at event #" + seq;
  $("fork").disabled = false;
  history.replaceState(null, "", "#/s/" + encodeURIComponent(app.sessionId) + "/e/" + seq);
  showDetail(seq);
  timings.select.push({ seq, ms: performance.now() - started });
  loadState(seq).then(() => {
    const last = timings.select.at(-1);
    if (last && last.seq === seq) last.withStateMs = performance.now() - started;
  });
}

async function forkHere() {
  if (view.selectedSeq === undefined) return;
  try {
    const result = await post(sessionPath(app.sessionId) + "/fork", { atSeq: view.selectedSeq });
    notify("Forked into " + result.sessionId);
    await loadSessions(false);
    location.hash = "#/s/" + encodeURIComponent(result.sessionId);
  } catch (error) {
    notify("Fork failed: " + error.message);
  }
}

function follow(sessionId, after) {
  if (app.source) app.source.close();
  const source = new EventSource("/api" + sessionPath(sessionId) + "/stream?after=" + after);
  app.source = source;
  source.addEventListener("ready", () => ($("live").textContent = "● live"));
  source.addEventListener("error", () => ($("live").textContent = source.readyState === 2 ? "" : "reconnecting…"));
  source.addEventListener("events", (message) => {
    if (app.sessionId !== sessionId) return;
    const update = JSON.parse(message.data);
    const known = new Set(app.events.map((event) => event.seq));
    const fresh = update.events.filter((event) => !known.has(event.seq));
    app.events = app.events.concat(fresh);
    view.fresh = new Set(fresh.map((event) => event.seq));
    if (update.session) app.session = update.session;
    renderSession();
    loadSessions(false);
  });
}

async function openSession(sessionId, seq, callId) {
  const started = performance.now();
  if (sessionId.length > ${MAX_IDENTIFIER_LENGTH}) {
    // No store holds such an id; asking for it would only meet the server's header limit (431).
    notify("Invalid session id: it is " + sessionId.length + " characters long; at most ${MAX_IDENTIFIER_LENGTH} are allowed");
    return;
  }
  try {
    const detail = await api(sessionPath(sessionId));
    const fetchMs = performance.now() - started;
    if (app.sessionId !== sessionId) {
      view.open = new Set();
      view.fresh = new Set();
      view.hidden = new Set();
    }
    app.sessionId = sessionId;
    app.events = detail.events;
    app.session = detail;
    const call = callId === undefined ? undefined : app.events.find((event) => event.type === "tool_call" && event.data?.toolCallId === callId);
    view.selectedSeq = call ? call.seq : seq;
    if (call) view.hidden.delete("tool_call");
    renderSession();
    requestAnimationFrame(() => timings.open.push({ sessionId, events: app.events.length, fetchMs, ms: performance.now() - started }));
    for (const link of document.querySelectorAll("#session-list a")) {
      link.setAttribute("aria-current", link.closest("li").dataset.session === sessionId ? "true" : "false");
    }
    follow(sessionId, detail.lastSeq);
  } catch (error) {
    notify("Could not open " + short(sessionId, 80) + ": " + error.message);
  }
}

function route() {
  const match = location.hash.match(/^#\/s\/([^/]+)(?:\/e\/(\d+)|\/call\/([^/]+))?$/);
  if (!match) {
    if (app.source) app.source.close();
    app.sessionId = undefined;
    $("live").textContent = "";
    $("main").replaceChildren(el("p", { className: "empty", text: "Select a session." }));
    return;
  }
  const sessionId = decodeURIComponent(match[1]);
  const seq = match[2] === undefined ? undefined : Number(match[2]);
  if (sessionId === app.sessionId && seq !== undefined) {
    if (seq !== view.selectedSeq) selectEvent(seq);
    return;
  }
  openSession(sessionId, seq, match[3] === undefined ? undefined : decodeURIComponent(match[3]));
}

let searchTimer;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => loadSessions(false), 200);
});
$("status").addEventListener("change", () => loadSessions(false));
$("filters").addEventListener("submit", (submit) => { submit.preventDefault(); loadSessions(false); });
$("more").addEventListener("click", () => loadSessions(true));
window.addEventListener("hashchange", route);
loadSessions(false);
route();
`;
