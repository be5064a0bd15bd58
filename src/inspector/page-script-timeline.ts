/**
 * The inspector's browser script, the timeline: per-event time since its run started and durations
 * (request → response, call → result, run start → end), the event-type filter, and the list itself —
 * nested in full below `FULL_LIMIT` rows, windowed above it (only the rows in view are in the DOM, at
 * a fixed row height), so a session of 10,000 events renders and selects quickly.
 */
export const TIMELINE_SCRIPT = `
const ROW_HEIGHT = 30;
const FULL_LIMIT = 400;
const OVERSCAN = 20;
const RUN_ENDS = new Set(["run_completed", "run_failed", "run_paused"]);
const NOTICE_TYPES = new Set(["model_retry", "model_fallback", "model_stream_reset", "partial_response", "run_failed", "run_paused"]);

function formatMs(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return "";
  if (Math.abs(ms) < 1000) return (Math.abs(ms) < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms";
  if (Math.abs(ms) < 60000) return (ms / 1000).toFixed(2) + " s";
  const seconds = Math.round(ms / 1000);
  return Math.floor(seconds / 60) + " min " + String(seconds % 60).padStart(2, "0") + " s";
}

/** seq → { rel: ms since its run started, dur?: ms the request/call/run took, durLabel? }. One pass. */
function eventTiming(events) {
  const timing = new Map();
  let runStart;
  let request;
  const calls = new Map();
  let run;
  for (const event of events) {
    const at = Date.parse(event.at);
    if (event.type === "run_started" || event.type === "run_resumed") {
      runStart = at;
      run = event;
    }
    if (runStart === undefined) runStart = at;
    const entry = { rel: at - runStart };
    timing.set(event.seq, entry);
    const data = event.data || {};
    if (event.type === "model_request") request = event;
    else if (event.type === "model_response" && request) {
      timing.get(request.seq).dur = at - Date.parse(request.at);
      timing.get(request.seq).durLabel = "until its response";
      entry.dur = typeof data.latencyMs === "number" ? data.latencyMs : undefined;
      entry.durLabel = "latency";
      request = undefined;
    } else if (event.type === "tool_call" && typeof data.toolCallId === "string") calls.set(data.toolCallId, event);
    else if ((event.type === "tool_result" || event.type === "tool_call_result") && calls.has(data.toolCallId)) {
      const call = calls.get(data.toolCallId);
      calls.delete(data.toolCallId);
      timing.get(call.seq).dur = typeof data.durationMs === "number" ? data.durationMs : at - Date.parse(call.at);
      timing.get(call.seq).durLabel = "until its result";
    } else if (RUN_ENDS.has(event.type) && run) {
      timing.get(run.seq).dur = at - Date.parse(run.at);
      timing.get(run.seq).durLabel = "until " + event.type.replace("_", " ");
      entry.dur = at - Date.parse(run.at);
      entry.durLabel = "run took";
      run = undefined;
    }
  }
  return timing;
}

function noticeBadge(event) {
  const data = event.data || {};
  switch (event.type) {
    case "model_retry":
      return el("span", { className: "badge badge-retry", text: "retry " + data.attempt + (data.error?.status ? " · " + data.error.status : "") + " · wait " + formatMs(data.delayMs) });
    case "model_fallback":
      return el("span", { className: "badge badge-fallback", text: "fallback " + data.from + " → " + data.to });
    case "model_stream_reset":
      return el("span", { className: "badge badge-reset", text: "stream reset" });
    case "partial_response":
      return el("span", { className: "badge badge-partial", text: "partial · " + data.reason });
    case "run_failed":
      return el("span", { className: "badge badge-failed", text: "failed" });
    case "run_paused":
      return el("span", { className: "badge badge-paused", text: "paused" });
    default:
      return undefined;
  }
}

/** The select button of a row: seq, kind, type, time, duration, notice badge, summary. */
function rowButton(event, view) {
  const kind = SURFACE.has(event.type) ? "surface" : "bookkeeping";
  const selected = view.selectedSeq === event.seq;
  const time = view.timing && view.timing.get(event.seq);
  return el("button", {
    type: "button", className: "select", "aria-pressed": selected ? "true" : "false",
    "aria-label": "Event " + event.seq + ", " + kind + ", " + event.type, onclick: () => view.select(event.seq),
  }, [
    el("span", { className: "seq", text: "#" + event.seq }),
    el("span", { className: "kind kind-" + kind, text: kind }),
    el("span", { className: "etype", text: event.type }),
    time && el("span", { className: "time", title: "since the run started", text: "+" + formatMs(time.rel) }),
    time && time.dur !== undefined && el("span", { className: "dur", title: time.durLabel, text: "Δ " + formatMs(time.dur) }),
    noticeBadge(event),
    el("span", { className: "summary", text: eventSummary(event) }),
  ]);
}

function rowClasses(event, view, extra) {
  const kind = SURFACE.has(event.type) ? "surface" : "bookkeeping";
  return ["event", kind, extra, NOTICE_TYPES.has(event.type) ? "notice-event" : "", view.selectedSeq === event.seq ? "selected" : "",
    view.fresh.has(event.seq) ? "fresh" : ""].filter(Boolean).join(" ");
}

function childLink(event) {
  const data = event.data || {};
  if (typeof data.childSessionId === "string") {
    return el("a", { className: "child-link", href: "#/s/" + encodeURIComponent(data.childSessionId), text: "child session " + data.childSessionId });
  }
  if (event.type === "run_started" && typeof data.parentSessionId === "string") {
    return el("a", { className: "parent-link", href: parentCallHref(data), text: "parent " + data.parentSessionId + (data.parentToolCallId ? " · call " + data.parentToolCallId : "") });
  }
  return undefined;
}

function parentCallHref(data) {
  return "#/s/" + encodeURIComponent(data.parentSessionId) + (data.parentToolCallId ? "/call/" + encodeURIComponent(data.parentToolCallId) : "");
}

/** Nested rows in the DOM (small sessions): every event, under its call. */
function renderEvent(node, view) {
  const event = node.event;
  const kind = SURFACE.has(event.type) ? "surface" : "bookkeeping";
  const details = el("details", { "data-seq": event.seq, open: view.open.has(event.seq) }, [
    el("summary", { text: "JSON" }),
    el("pre", { text: json(event) }),
  ]);
  details.addEventListener("toggle", () => (details.open ? view.open.add(event.seq) : view.open.delete(event.seq)));
  return el("li", { className: rowClasses(event, view), "data-seq": event.seq, "data-type": event.type, "data-kind": kind }, [
    el("div", { className: "row" }, [rowButton(event, view), childLink(event)]),
    details,
    node.children.length > 0 && el("ol", { className: "children", "aria-label": "Nested in " + (event.data?.toolCallId || "#" + event.seq) },
      node.children.map((child) => renderEvent(child, view))),
  ]);
}

function flattenTree(roots) {
  const rows = [];
  const stack = roots.map((node) => [node, 0]).reverse();
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    rows.push({ event: node.event, depth });
    for (let index = node.children.length - 1; index >= 0; index--) stack.push([node.children[index], depth + 1]);
  }
  return rows;
}

function moveSelection(rows, view, step) {
  const index = rows.findIndex((row) => row.event.seq === view.selectedSeq);
  const next = rows[index + step];
  if (!next) return false;
  view.select(next.event.seq);
  return true;
}

/** The timeline: nested and complete for small sessions, windowed for large ones. */
function renderTimeline(events, view) {
  const roots = eventTree(events);
  const rows = flattenTree(roots);
  view.rows = rows;
  view.timeline = undefined;
  if (rows.length <= FULL_LIMIT) {
    const list = el("ol", { className: "timeline", id: "timeline", "aria-label": "Timeline" }, roots.map((node) => renderEvent(node, view)));
    list.addEventListener("keydown", (key) => {
      if (key.key !== "ArrowDown" && key.key !== "ArrowUp") return;
      const buttons = [...list.querySelectorAll("button.select")];
      const next = buttons[buttons.indexOf(document.activeElement) + (key.key === "ArrowDown" ? 1 : -1)];
      if (next) { key.preventDefault(); next.focus(); next.click(); }
    });
    return list;
  }
  return renderWindowed(rows, view);
}

function renderWindowed(rows, view) {
  const list = el("ol", { className: "timeline windowed", id: "timeline", "aria-label": "Timeline", "data-rows": rows.length });
  const inner = el("div", { className: "window-inner" }, [list]);
  const scroller = el("div", { className: "timeline-scroll", id: "timeline-scroll", tabindex: "0" }, [inner]);
  inner.style.height = rows.length * ROW_HEIGHT + "px";
  const index = new Map(rows.map((row, position) => [row.event.seq, position]));
  let first = -1;
  let last = -1;
  const draw = (force) => {
    const height = scroller.clientHeight || 800;
    const from = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const to = Math.min(rows.length, Math.ceil((scroller.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    if (!force && from === first && to === last) return;
    first = from;
    last = to;
    list.style.transform = "translateY(" + from * ROW_HEIGHT + "px)";
    list.replaceChildren(...rows.slice(from, to).map(({ event, depth }) => {
      const kind = SURFACE.has(event.type) ? "surface" : "bookkeeping";
      const item = el("li", { className: rowClasses(event, view, "flat"), "data-seq": event.seq, "data-type": event.type, "data-kind": kind, "data-depth": depth },
        [el("div", { className: "row" }, [rowButton(event, view), childLink(event)])]);
      item.style.paddingLeft = depth * 24 + "px";
      return item;
    }));
  };
  const reveal = (seq) => {
    const position = index.get(seq);
    if (position === undefined) return;
    const top = position * ROW_HEIGHT;
    if (top < scroller.scrollTop || top + ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 2);
    }
    draw(false);
  };
  scroller.addEventListener("scroll", () => draw(false), { passive: true });
  scroller.addEventListener("keydown", (key) => {
    if (key.key !== "ArrowDown" && key.key !== "ArrowUp") return;
    key.preventDefault();
    if (moveSelection(rows, view, key.key === "ArrowDown" ? 1 : -1)) {
      reveal(view.selectedSeq);
      list.querySelector('li[data-seq="' + view.selectedSeq + '"] button.select')?.focus();
    }
  });
  view.timeline = { draw, reveal };
  return scroller;
}

/** Chips, one per event type in the session with its count; pressed = shown. */
function renderTypeFilter(events, view, onChange) {
  const counts = new Map();
  for (const event of events) counts.set(event.type, (counts.get(event.type) || 0) + 1);
  const chips = [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([type, count]) =>
    el("button", {
      type: "button", className: "chip", "data-type": type, "aria-pressed": view.hidden.has(type) ? "false" : "true",
      text: type + " " + count,
      onclick: () => {
        if (view.hidden.has(type)) view.hidden.delete(type);
        else view.hidden.add(type);
        onChange();
      },
    }));
  const all = el("button", { type: "button", className: "chip chip-all", text: "show all", disabled: view.hidden.size === 0, onclick: () => { view.hidden.clear(); onChange(); } });
  return el("div", { className: "type-filter", id: "type-filter", role: "group", "aria-label": "Filter by event type" }, [...chips, all]);
}
`;
