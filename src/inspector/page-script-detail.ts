/**
 * The inspector's browser script, the detail pane: the selected event (time, duration, JSON), the
 * request as the model saw it (system text, tools, settings, message window, wire), retries,
 * fallbacks, partial output, each deps operation's old → new value, and the run's failure or pause.
 */
export const DETAIL_SCRIPT = `
function field(label, value, id) {
  if (value === undefined || value === null || value === "") return undefined;
  return el("div", { className: "field", "data-field": id || label }, [el("span", { className: "label", text: label }), el("span", { className: "value", text: typeof value === "string" ? value : json(value) })]);
}

/** The banner of the session's last run: its failure (code, message) or the approvals it waits for. */
function renderRunBanner(events) {
  let last;
  for (const event of events) {
    if (event.type === "run_started" || event.type === "run_resumed" || RUN_ENDS.has(event.type)) last = event;
  }
  if (last && last.type === "run_failed") {
    const error = last.data.error || {};
    return el("section", { className: "banner banner-failed", id: "run-banner", role: "alert", "data-state": "failed" }, [
      el("b", { text: "Run failed: " }),
      el("span", { className: "code", text: String(error.code) }),
      " " + (error.message ?? ""),
      " ",
      el("a", { href: "#/s/" + encodeURIComponent(app.sessionId) + "/e/" + last.seq, text: "event #" + last.seq }),
    ]);
  }
  if (last && last.type === "run_paused") {
    const pending = last.data.pending || [];
    return el("section", { className: "banner banner-paused", id: "run-banner", role: "status", "data-state": "paused" }, [
      el("b", { text: "Run paused, waiting for " + pending.length + " approval" + (pending.length === 1 ? "" : "s") + ":" }),
      el("ul", {}, pending.map((item) => el("li", { "data-call": item.toolCallId }, [
        el("span", { className: "etype", text: item.toolName }),
        " " + item.toolCallId + " " + short(item.args, 80),
        item.path && item.path.length > 0 ? " (in " + item.path.map((step) => step.sessionId).join(" › ") + ")" : "",
      ]))),
    ]);
  }
  return el("div", { id: "run-banner" });
}

function renderPartial(output, title) {
  const calls = output?.toolCalls || [];
  return el("div", { className: "partial", id: "partial-output" }, [
    el("h4", { text: title }),
    output?.text ? el("pre", { className: "partial-text", text: output.text }) : el("p", { className: "muted", text: "No text." }),
    output?.reasoning && el("h4", { text: "Reasoning" }),
    output?.reasoning && el("pre", { className: "partial-reasoning", text: output.reasoning }),
    calls.length > 0 && el("ul", { className: "partial-calls" }, calls.map((call) =>
      el("li", { className: call.complete ? "complete" : "incomplete", "data-call": call.toolCallId }, [
        el("span", { className: "etype", text: call.toolName }),
        " " + call.toolCallId + " ",
        el("span", { className: "badge " + (call.complete ? "badge-complete" : "badge-incomplete"), text: call.complete ? "complete" : "incomplete — never run" }),
        el("pre", { text: call.argsText }),
      ]))),
  ]);
}

function renderNotice(event) {
  const data = event.data || {};
  const notice = (fields, partial) => el("div", { className: "notice-detail", id: "notice-detail" }, [el("div", { className: "fields" }, fields), partial]);
  switch (event.type) {
    case "model_retry":
      return notice([
        field("Model", data.model), field("Attempt", String(data.attempt)), field("Status", data.error?.status === undefined ? undefined : String(data.error.status)),
        field("Error", data.error && data.error.code + ": " + data.error.message), field("Delay", formatMs(data.delayMs)),
        field("Retry-after", data.retryAfterMs === undefined ? undefined : formatMs(data.retryAfterMs)),
      ]);
    case "model_fallback":
      return notice([
        field("From → to", data.from + " → " + data.to, "route"), field("Error", data.error && (data.error.status ? data.error.status + " " : "") + data.error.code + ": " + data.error.message),
        field("Wire", data.wire && data.wire.api + " · " + data.wire.modelId),
      ]);
    case "model_stream_reset":
      return notice([field("Model", data.model), field("Reason", data.reason)], renderPartial(data.discarded, "Discarded output"));
    case "partial_response":
      return notice([field("Model", data.model), field("Reason", data.reason), field("Error", data.error && data.error.code + ": " + data.error.message)],
        renderPartial(data.output, "Partial output (never sent back to the model)"));
    default:
      return undefined;
  }
}

/** The selected event: when it happened, how long it took, its own details and its JSON. */
function renderEventDetail(event, view) {
  const time = view.timing && view.timing.get(event.seq);
  const hidden = view.hidden.has(event.type);
  const isRequest = event.type === "model_request" || event.type === "model_fallback";
  return el("div", { id: "event-detail", "data-seq": event.seq }, [
    el("div", { className: "event-meta" }, [
      el("span", { className: "etype", text: event.type }),
      " at " + event.at,
      time && el("span", { className: "time", id: "detail-time", text: " · +" + formatMs(time.rel) + " since the run started" }),
      time && time.dur !== undefined && el("span", { className: "dur", id: "detail-duration", text: " · " + time.durLabel + " " + formatMs(time.dur) }),
      hidden && el("span", { className: "muted", text: " (hidden by the type filter)" }),
    ]),
    renderNotice(event),
    isRequest && el("div", { id: "request-detail", className: "muted", text: "Loading the request…" }),
    el("details", { className: "event-json" }, [el("summary", { text: "Event JSON" }), el("pre", { text: json(event) })]),
  ]);
}

function describeOutput(request) {
  if (request.output) return "native JSON schema " + request.output.name;
  if (request.outputToolName) return "tool " + request.outputToolName;
  return "text";
}

/** The request as sent: wire, stream, ids, system text, settings, tools, messages. */
function renderRequest(detail) {
  const request = detail.request;
  const settings = request.settings || {};
  const options = settings.providerOptions;
  const windowText = (detail.event.data.window || []).map((range) => "#" + range[0] + "–#" + range[1]).join(", ");
  return el("div", { id: "request-detail", className: "request" }, [
    el("h4", { text: "Request as sent" + (detail.event.seq !== detail.seq ? " (request #" + detail.event.seq + ", to the fallback)" : "") }),
    el("div", { className: "fields", id: "request-fields" }, [
      field("Wire", detail.wire ? detail.wire.api + " · " + detail.wire.modelId : "(not recorded)", "wire"),
      field("Stream", detail.stream ? "yes" : "no", "stream"),
      field("Response id", detail.response?.responseId, "responseId"),
      field("Request id", detail.response?.requestId, "requestId"),
      field("Answered", detail.response ? "#" + detail.response.seq + " · " + detail.response.finishReason + " · " + formatMs(detail.response.latencyMs) : "no response (failed)", "answered"),
      field("Temperature", settings.temperature === undefined ? undefined : String(settings.temperature), "temperature"),
      field("Top p", settings.topP === undefined ? undefined : String(settings.topP), "topP"),
      field("Max tokens", settings.maxOutputTokens === undefined ? undefined : String(settings.maxOutputTokens), "maxOutputTokens"),
      field("Stop", settings.stopSequences, "stop"),
      field("Seed", settings.seed === undefined ? undefined : String(settings.seed), "seed"),
      field("Tool choice", request.toolChoice === undefined ? undefined : typeof request.toolChoice === "string" ? request.toolChoice : "tool " + request.toolChoice.toolName, "toolChoice"),
      field("Output", describeOutput(request), "output"),
      field("Window", windowText || (detail.event.data.messages ? "messages sent inline (a preRequest hook changed them)" : undefined), "window"),
    ]),
    request.output && el("details", {}, [el("summary", { text: "Output schema" }), el("pre", { id: "request-output-schema", text: json(request.output.schema) })]),
    options && el("details", { open: true }, [el("summary", { text: "Provider options" }), el("pre", { id: "request-provider-options", text: json(options) })]),
    el("h4", { text: "System" }),
    request.instructions ? el("pre", { id: "request-system", text: request.instructions }) : el("p", { className: "muted", id: "request-system", text: "No system text." }),
    el("h4", { text: "Tools (" + request.tools.length + ")" }),
    el("ul", { className: "tools", id: "request-tools" }, request.tools.map((tool) => el("li", { "data-tool": tool.name }, [
      el("span", { className: "etype", text: tool.name }), " " + tool.description,
      el("details", {}, [el("summary", { text: "input schema" }), el("pre", { text: json(tool.inputSchema) })]),
    ]))),
    el("h4", { text: "Messages the model saw (" + request.messages.length + ")" }),
    renderMessages(request.messages, "request-messages"),
  ]);
}

function renderOperations(operations) {
  const value = (present, item) => (present ? short(JSON.stringify(item) ?? "undefined", 200) : "(absent)");
  return el("table", { className: "ops", id: "operations", "aria-label": "Deps operations" }, [
    el("thead", {}, [el("tr", {}, ["Operation", "Key", "Before", "After"].map((text) => el("th", { text })))]),
    el("tbody", {}, operations.map((change) => el("tr", { "data-op": change.op, "data-key": change.key }, [
      el("td", { className: "op op-" + change.op, text: change.op }),
      el("td", { className: "key", text: change.key }),
      el("td", { className: "before", text: value(change.existedBefore, change.before) }),
      el("td", { className: "after", text: value(change.existsAfter, change.after) }),
    ]))),
  ]);
}
`;
