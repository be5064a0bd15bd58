/**
 * The inspector's browser script, part 1: DOM helpers and the views (event summaries, the event
 * tree, state at an event, request chart). Plain JavaScript served as text; every piece of data becomes a text node or an
 * attribute value, never markup.
 */
export const VIEWS_SCRIPT = String.raw`
const SVG_NS = "http://www.w3.org/2000/svg";
const SURFACE = new Set(["user_message", "assistant_message", "tool_result", "system_message"]);

function el(tag, props, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "className") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of [].concat(children || [])) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function svg(tag, attributes, children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of [].concat(children || [])) if (child) node.append(child);
  return node;
}

function json(value) {
  return JSON.stringify(value, null, 2) ?? "undefined";
}

function short(value, max) {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** A recorded cost's parts, as " (input $…, cache read $…, …)"; empty when it has none. */
function costParts(detail) {
  if (!detail || typeof detail.usd !== "number") return "";
  const names = [["inputUsd", "input"], ["cacheReadUsd", "cache read"], ["cacheWriteUsd", "cache write"], ["outputUsd", "output"], ["reasoningUsd", "reasoning"]];
  const parts = names.filter(([key]) => typeof detail[key] === "number").map(([key, name]) => name + " " + formatCost(detail[key]));
  return parts.length === 0 ? "" : " (" + parts.join(", ") + ")";
}

function formatCost(cost) {
  if (cost === undefined || cost === null) return "—";
  return cost < 0.01 ? "$" + cost.toFixed(6) : "$" + cost.toFixed(4);
}

function eventSummary(event) {
  const data = event.data || {};
  switch (event.type) {
    case "user_message":
    case "system_message":
      return short(data.content, 90);
    case "assistant_message":
      return (data.content || [])
        .map((part) => (part.type === "tool-call" ? "→ " + part.toolName + "(" + short(part.args, 40) + ")" : short(part.text, 60)))
        .join(" ");
    case "tool_result":
      return (data.isError ? "error from " : "") + data.toolName + ": " + short(data.result, 60);
    case "tool_call":
      return data.toolName + "(" + short(data.args, 50) + ") " + (data.toolCallId || "") + (data.rerun ? " (re-run)" : "");
    case "tool_call_result":
      return (data.isError ? "error from " : "") + data.toolName + ": " + short(data.result, 60) + " " + (data.toolCallId || "");
    case "tool_call_refused":
      return "refused " + data.toolName + "(" + short(data.args, 40) + "): " + short(data.error, 50);
    case "context_update":
      return (data.origin === "initial" ? "initial deps: " : (data.toolName || "") + ": ") +
        (data.operations || []).map((op) => op.op + " " + op.key).join(", ");
    case "model_request":
      return data.model + (data.wire ? " via " + data.wire.api : "") + ", " + data.messageCount + " messages" + (data.stream ? ", streamed" : "") + (data.purpose ? ", for " + data.purpose : "");
    case "compaction":
      return (data.strategy === "summarize"
        ? "seq " + (data.replaces || []).join("–") + " summarized: " + short(data.summary, 50)
        : (data.dropped || []).length + " tool results dropped") + " · " + data.tokensBefore + " → " + data.tokensAfter + " tokens";
    case "tool_definitions": {
      const names = (data.tools || []).map((tool) => tool.name).concat((data.providerTools || []).map((tool) => tool.id));
      return names.length + " tools: " + names.join(", ");
    }
    case "provider_tool_call":
      return data.toolName + "(" + short(data.input, 50) + ") at the provider " + (data.toolCallId || "");
    case "provider_tool_result":
      return (data.isError ? "error from " : "") + data.toolName + ": " +
        ((data.sources || []).length > 0 ? sourceList(data.sources) : short(data.result, 60));
    case "provider_sources":
      return "cites " + sourceList(data.sources || []);
    case "model_retry":
      return data.model + ": " + recordedError(data.error) + (data.retryAfterMs !== undefined ? " (retry-after)" : "");
    case "model_fallback":
      return recordedError(data.error);
    case "model_stream_reset":
      return data.model + " (" + data.reason + "): discarded " + partialSummary(data.discarded);
    case "partial_response":
      return data.model + ": " + partialSummary(data.output) + (data.error ? " · " + recordedError(data.error) : "");
    case "run_paused":
      return "waiting for " + (data.pending || []).map((item) => item.toolName + " " + item.toolCallId).join(", ");
    case "model_response":
      return data.model + ": " + (data.usage?.inputTokens ?? 0) + " in / " + (data.usage?.outputTokens ?? 0) + " out, " +
        Math.round(data.latencyMs ?? 0) + " ms" + (typeof data.cost?.usd === "number" ? ", " + formatCost(data.cost.usd) : "");
    case "approval_requested":
      return data.toolName + "(" + short(data.args, 50) + ") needs approval";
    case "approval_decided":
      return (data.approved ? "approved " : "rejected ") + data.toolCallId + (data.reason ? ": " + data.reason : "");
    case "run_failed":
      return data.error ? data.error.code + ": " + short(data.error.message, 70) : "";
    case "run_started":
      return [data.agent, data.model].filter(Boolean).join(" · ");
    case "run_resumed":
    case "run_completed":
      return "run " + String(data.runId || "").slice(0, 8) + (data.output === undefined ? "" : ": " + short(data.output, 60));
    default:
      return short(data, 80);
  }
}

function sourceList(sources) {
  return sources.length + " source(s): " + short(sources.map((source) => source.url || source.filename || source.fileId).join(", "), 70);
}

function recordedError(error) {
  if (!error) return "";
  return (error.status ? error.status + " " : "") + error.code + ": " + short(error.message, 60);
}

function partialSummary(output) {
  if (!output) return "nothing";
  const calls = output.toolCalls || [];
  const parts = [];
  if (output.text) parts.push(short(output.text, 40));
  if (output.reasoning) parts.push("reasoning " + output.reasoning.length + " chars");
  if (calls.length > 0) parts.push(calls.length + " tool call(s), " + calls.filter((call) => !call.complete).length + " incomplete");
  return parts.join(" · ") || "nothing";
}

function parentOf(event, calls) {
  const data = event.data;
  if (!data || typeof data !== "object") return undefined;
  // A nested call's own update and result go under its intent; the intent under its parent's call.
  if (event.type !== "tool_call" && typeof data.parentToolCallId === "string" && calls.has(data.toolCallId)) {
    return data.toolCallId;
  }
  return typeof data.parentToolCallId === "string" ? data.parentToolCallId
    : typeof data.parentCallId === "string" ? data.parentCallId : undefined;
}

/** Events as a forest: an event naming a parent call goes under the tool_call with that id. */
function eventTree(events) {
  const calls = new Map();
  const roots = [];
  const nodes = events.map((event) => ({ event, children: [] }));
  for (const node of nodes) {
    const parent = parentOf(node.event, calls);
    const owner = parent === undefined ? undefined : calls.get(parent);
    if (owner) owner.children.push(node);
    else roots.push(node);
    if (node.event.type === "tool_call" && typeof node.event.data?.toolCallId === "string") {
      calls.set(node.event.data.toolCallId, node);
    }
  }
  return roots;
}

function childPath(path, key) {
  if (typeof key === "number") return path + "[" + key + "]";
  const plain = /^[A-Za-z_$][\w$]*$/.test(key);
  if (path === "") return plain ? key : "[" + JSON.stringify(key) + "]";
  return plain ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
}

function renderTree(value, path, marks) {
  const isList = Array.isArray(value);
  const isObject = value !== null && typeof value === "object";
  if (!isObject) return el("span", { className: "val", text: JSON.stringify(value) ?? "undefined" });
  const entries = isList ? value.map((item, index) => [index, item]) : Object.entries(value);
  if (entries.length === 0) return el("span", { className: "val", text: isList ? "[]" : "{}" });
  return el("div", {}, entries.map(([key, item]) => {
    const itemPath = childPath(path, key);
    const mark = marks.get(itemPath);
    return el("div", { className: "node" + (mark ? " " + mark : ""), "data-path": itemPath }, [
      el("span", { className: "key", text: (isList ? "[" + key + "]" : key) + ": " }),
      renderTree(item, itemPath, marks),
    ]);
  }));
}

function renderMessage(message) {
  let text;
  if (message.role === "assistant") {
    text = (message.content || []).map((part) =>
      part.type === "tool-call" ? "→ " + part.toolName + " " + JSON.stringify(part.args) : (part.type === "reasoning" ? "(thinking) " : "") + part.text).join("\n");
  } else if (message.role === "tool") {
    text = message.toolName + (message.isError ? " (error)" : "") + " → " + JSON.stringify(message.result);
  } else {
    text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  }
  return el("li", { "data-role": message.role }, [el("span", { className: "role", text: message.role }), text]);
}

const MESSAGES_SHOWN = 100;

/**
 * A list of messages; of a long one the last MESSAGES_SHOWN, with a button for the rest (total
 * when only the last ones were fetched; loadAll then fetches them all).
 */
function renderMessages(messages, id, total, loadAll) {
  const count = total ?? messages.length;
  const list = el("ol", { className: "messages", id, start: Math.max(1, count - MESSAGES_SHOWN + 1) },
    messages.slice(-MESSAGES_SHOWN).map(renderMessage));
  if (count <= MESSAGES_SHOWN) return list;
  const more = el("button", { type: "button", className: "more-messages", text: "Show the " + (count - MESSAGES_SHOWN) + " earlier messages" });
  more.addEventListener("click", async () => {
    const all = messages.length >= count || !loadAll ? messages : await loadAll();
    list.setAttribute("start", "1");
    list.replaceChildren(...all.map(renderMessage));
    more.remove();
  });
  return el("div", {}, [more, list]);
}

function renderState(state, loadAll) {
  const marks = new Map();
  for (const path of state.diff.added) marks.set(path, "added");
  for (const path of state.diff.changed) marks.set(path, "changed");
  const diffItems = [
    ...state.diff.added.map((path) => el("li", { className: "added", text: "+ " + path })),
    ...state.diff.changed.map((path) => el("li", { className: "changed", text: "~ " + path })),
    ...state.diff.removed.map((path) => el("li", { className: "removed", text: "− " + path })),
  ];
  return el("div", { id: "state-body" }, [
    state.error && el("p", { className: "notice-inline", role: "alert", text: "Deps could not be rebuilt: " + state.error }),
    el("h4", { text: "Deps change at this event" }),
    diffItems.length > 0 ? el("ul", { className: "diff", id: "diff", "aria-label": "Deps diff" }, diffItems)
      : el("p", { className: "muted", id: "diff", text: "No change to the deps." }),
    state.operations && renderOperations(state.operations),
    el("h4", { text: "Deps" }),
    el("div", { className: "tree", id: "deps" }, [renderTree(state.deps, "", marks)]),
    el("h4", { text: "Messages (" + (state.messageCount ?? state.messages.length) + ")" }),
    renderMessages(state.messages, "messages", state.messageCount, loadAll),
  ]);
}

/** Tokens (stacked bars, input and output) and latency (a line on its own scale) per request. */
const CHART_BARS = 200;

/** Above CHART_BARS requests, each bar is the average of a run of consecutive requests. */
function chartBuckets(requests) {
  if (requests.length <= CHART_BARS) return requests;
  const size = Math.ceil(requests.length / CHART_BARS);
  const buckets = [];
  for (let start = 0; start < requests.length; start += size) {
    const group = requests.slice(start, start + size);
    const mean = (key) => group.reduce((sum, request) => sum + request[key], 0) / group.length;
    const priced = group.filter((request) => typeof request.cost === "number");
    buckets.push({
      seq: group[0].seq, inputTokens: Math.round(mean("inputTokens")), outputTokens: Math.round(mean("outputTokens")), latencyMs: mean("latencyMs"),
      cost: priced.length === 0 ? undefined : priced.reduce((sum, request) => sum + request.cost, 0) / priced.length, count: group.length,
    });
  }
  return buckets;
}

function renderChart(all) {
  if (all.length === 0) return el("p", { className: "muted", text: "No model requests yet." });
  const requests = chartBuckets(all);
  const width = 900, height = 180, left = 40, right = 48, top = 10, bottom = 22;
  const maxTokens = Math.max(1, ...requests.map((r) => r.inputTokens + r.outputTokens));
  const maxLatency = Math.max(1, ...requests.map((r) => r.latencyMs));
  const slot = (width - left - right) / requests.length;
  const barWidth = Math.max(2, Math.min(40, slot * 0.6));
  const y = (tokens) => top + (height - top - bottom) * (1 - tokens / maxTokens);
  const ly = (ms) => top + (height - top - bottom) * (1 - ms / maxLatency);
  const parts = [
    svg("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: "#d0d7de" }),
    svg("text", { x: 2, y: top + 8, "font-size": 10, fill: "#59636e", text: String(maxTokens) }),
    svg("text", { x: width - right + 4, y: top + 8, "font-size": 10, fill: "#bc4c00", text: Math.round(maxLatency) + " ms" }),
  ];
  const points = [];
  requests.forEach((request, index) => {
    const x = left + slot * index + (slot - barWidth) / 2;
    const inputTop = y(request.inputTokens);
    const totalTop = y(request.inputTokens + request.outputTokens);
    const label = (request.count ? "Average of " + request.count + " requests from " : "Request " + (index + 1) + " ") + "(event #" + request.seq + "): " + request.inputTokens + " input, " +
      request.outputTokens + " output tokens, " + request.latencyMs.toFixed(1) + " ms, " + formatCost(request.cost) + costParts(request.costDetail);
    parts.push(svg("g", { class: "bar", "data-seq": request.seq }, [
      svg("title", { text: label }),
      svg("rect", { x, y: inputTop, width: barWidth, height: height - bottom - inputTop, fill: "#1f6feb" }),
      svg("rect", { x, y: totalTop, width: barWidth, height: inputTop - totalTop, fill: "#8250df" }),
      (requests.length <= 50 || index % Math.ceil(requests.length / 25) === 0) &&
        svg("text", { x: x + barWidth / 2, y: height - 8, "font-size": 10, "text-anchor": "middle", fill: "#59636e", text: String(index + 1) }),
    ]));
    points.push((x + barWidth / 2).toFixed(1) + "," + ly(request.latencyMs).toFixed(1));
  });
  parts.push(svg("polyline", { points: points.join(" "), fill: "none", stroke: "#bc4c00", "stroke-width": 2 }));
  for (const point of points) {
    const [cx, cy] = point.split(",");
    parts.push(svg("circle", { cx, cy, r: 3, fill: "#bc4c00" }));
  }
  return el("div", {}, [
    svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "Tokens and latency of " + all.length + " model requests" + (requests === all ? "" : ", " + requests.length + " bars of averages") }, parts),
    el("div", { className: "legend" }, [
      el("span", {}, [el("span", { className: "swatch", "data-color": "input" }), "input tokens"]),
      el("span", {}, [el("span", { className: "swatch", "data-color": "output" }), "output tokens"]),
      el("span", {}, [el("span", { className: "swatch", "data-color": "latency" }), "latency (right scale)"]),
    ]),
  ]);
}
`;
