import {
  type AssistantPart,
  isSurfaceType,
  projectDeps,
  type SessionEvent,
  type SessionSummary,
  type SessionUsage,
} from "../index.js";
import { type CliIo, paint, terminalText } from "./cli-support.js";
import { formatCost, formatUsage, preview } from "./render-stream.js";

type Data = Record<string, unknown>;

/** One line describing an event's data, by type, safe to print (control characters neutralised). */
export function summarizeEvent(event: SessionEvent): string {
  return terminalText(describeEvent(event));
}

function describeEvent(event: SessionEvent): string {
  const data = (event.data ?? {}) as Data;
  switch (event.type) {
    case "user_message":
    case "system_message":
      return typeof data.content === "string"
        ? preview(data.content, 100)
        : `[${(data.content as unknown[]).length} parts]`;
    case "assistant_message":
      return ((data.content as readonly AssistantPart[]) ?? [])
        .map((part) => {
          if (part.type === "text") return preview(part.text, 80);
          if (part.type === "reasoning") return `(reasoning: ${preview(part.text, 40)})`;
          if (part.type === "tool-call") return `→ ${part.toolName}(${preview(part.args, 60)})`;
          return "";
        })
        .join(" ");
    case "tool_result":
      return `${data.isError ? "✗ " : ""}${String(data.toolName)}: ${preview(data.result, 80)}`;
    case "tool_call":
    case "approval_requested":
      return `${String(data.toolName)}(${preview(data.args, 60)}) call ${String(data.toolCallId)}${data.parentToolCallId ? ` in ${String(data.parentToolCallId)}` : ""}${data.rerun ? " (re-run)" : ""}`;
    case "tool_call_result":
      return `${data.isError ? "✗ " : ""}${String(data.toolName)}: ${preview(data.result, 80)} (call ${String(data.toolCallId)})`;
    case "tool_call_refused":
      return `✗ refused ${String(data.toolName)}(${preview(data.args, 40)}) call ${String(data.toolCallId)}: ${preview(data.error, 60)}`;
    case "context_update": {
      const operations = (data.operations as { op: string; key: string }[]) ?? [];
      const origin = data.origin === "initial" ? "initial deps: " : data.toolName ? `${String(data.toolName)}: ` : "";
      return `${origin}${operations.map((operation) => `${operation.op} ${operation.key}`).join(", ")}`;
    }
    case "model_request":
      return `${String(data.model)} · iteration ${String(data.iteration)} · ${String(data.messageCount)} messages${data.purpose ? ` · for ${String(data.purpose)}` : ""}`;
    case "compaction":
      return describeCompaction(data);
    case "model_response": {
      const usage = (data.usage ?? {}) as { totalTokens?: number; inputTokens?: number; outputTokens?: number };
      const tokens = usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
      const cost = (data.cost ?? {}) as { usd?: unknown };
      const priced = typeof cost.usd === "number" ? ` · ${formatCost({ usd: cost.usd, partial: false })}` : "";
      return `${String(data.finishReason)} · ${tokens} tokens · ${String(data.latencyMs)} ms${priced}`;
    }
    case "approval_decided":
      return `call ${String(data.toolCallId)}: ${data.approved ? (data.args !== undefined ? "approved with edited args" : "approved") : `rejected${data.reason ? ` (${String(data.reason)})` : ""}`}`;
    case "run_started":
      return `run ${String(data.runId)}${data.agent ? ` · ${String(data.agent)}` : ""}${data.model ? ` · ${String(data.model)}` : ""}`;
    case "run_failed": {
      const error = (data.error ?? {}) as { code?: string; message?: string };
      return `run ${String(data.runId)}: ${error.code ?? "error"}: ${preview(error.message ?? "", 80)}`;
    }
    case "run_completed":
    case "run_resumed":
      return `run ${String(data.runId)}`;
    case "tool_definitions": {
      const tools = [
        ...((data.tools as { name?: string }[] | undefined) ?? []).map((tool) => tool.name),
        ...((data.providerTools as { id?: string }[] | undefined) ?? []).map((tool) => tool.id),
      ];
      return `${tools.length} tools (${preview(tools.join(", "), 60)}) · ${String(data.hash).slice(0, 12)}`;
    }
    case "provider_tool_call":
      return `${String(data.toolName)}(${preview(data.input, 60)}) ran at the provider · call ${String(data.toolCallId)}`;
    case "provider_tool_result":
      return `${data.isError ? "✗ " : ""}${String(data.toolName)}: ${describeSources(data.sources) || preview(data.result, 60)} · call ${String(data.toolCallId)}`;
    case "provider_sources":
      return `cites ${describeSources(data.sources)}`;
    case "model_retry":
      return `${String(data.model)} · attempt ${String(data.attempt)} failed: ${describeRecordedError(data.error)} · retry in ${String(data.delayMs)} ms`;
    case "model_fallback":
      return `${String(data.from)} → ${String(data.to)}: ${describeRecordedError(data.error)}`;
    case "model_stream_reset":
      return `${String(data.model)} restarted (${preview(data.reason, 60)}) · discarded ${describePartial(data.discarded)}`;
    case "partial_response":
      return `${String(data.model)} cut off (${String(data.reason)}${data.error ? `: ${describeRecordedError(data.error)}` : ""}) · kept ${describePartial(data.output)}`;
    case "run_paused": {
      const pending = (data.pending as { toolName?: string; toolCallId?: string }[] | undefined) ?? [];
      const calls = pending.map((call) => `${String(call.toolName)} (${String(call.toolCallId)})`).join(", ");
      return `run ${String(data.runId)} waits for approval of ${preview(calls, 80)}`;
    }
    case "agent_changed": {
      const name = (agent: unknown) => (agent as { name?: string } | undefined)?.name ?? "unnamed agent";
      return `${name(data.from)} → ${name(data.to)}${data.reason ? ` (${String(data.reason)})` : ""}`;
    }
    default:
      return preview(event.data, 100);
  }
}

/** `seq 2–40 summarized: "The user…" · 9120 → 840 tokens`, or `3 tool results dropped · …`. */
function describeCompaction(data: Data): string {
  const tokens = `${String(data.tokensBefore)} → ${String(data.tokensAfter)} tokens`;
  if (data.strategy === "summarize") {
    const [from, to] = (data.replaces as [number, number] | undefined) ?? [];
    return `seq ${String(from)}–${String(to)} summarized: ${preview(data.summary, 60)} · ${tokens}`;
  }
  const dropped = (data.dropped as unknown[] | undefined) ?? [];
  return `${dropped.length} tool result${dropped.length === 1 ? "" : "s"} dropped · ${tokens}`;
}

/** `2 sources: https://a.example, https://b.example` (empty for none). */
function describeSources(sources: unknown): string {
  const list = Array.isArray(sources) ? (sources as { url?: string; fileId?: string; filename?: string }[]) : [];
  if (list.length === 0) return "";
  const names = list.map((source) => source.url ?? source.filename ?? source.fileId ?? "?").join(", ");
  return `${list.length} source${list.length === 1 ? "" : "s"}: ${preview(names, 70)}`;
}

function describeRecordedError(error: unknown): string {
  const recorded = (error ?? {}) as { code?: string; status?: number; message?: string };
  const status = recorded.status === undefined ? "" : ` ${recorded.status}`;
  return `${recorded.code ?? "error"}${status} ${preview(recorded.message ?? "", 60)}`;
}

/** `text "Once upon a…", 14 of reasoning, 1 tool call (1 incomplete)`. */
function describePartial(output: unknown): string {
  const partial = (output ?? {}) as { text?: string; reasoning?: string; toolCalls?: { complete?: boolean }[] };
  const calls = partial.toolCalls ?? [];
  const incomplete = calls.filter((call) => !call.complete).length;
  const parts = [
    partial.text ? `text ${preview(JSON.stringify(partial.text), 50)}` : "no text",
    ...(partial.reasoning ? [`${partial.reasoning.length} of reasoning`] : []),
    ...(calls.length > 0
      ? [
          `${calls.length} tool call${calls.length === 1 ? "" : "s"}${incomplete > 0 ? ` (${incomplete} incomplete)` : ""}`,
        ]
      : []),
  ];
  return parts.join(", ");
}

/**
 * Prints a session's timeline: a summary header, then one line per event. Surface events (what the
 * model sees) are marked "▌ surface"; bookkeeping events (audit, usage, approvals, lifecycle) are
 * indented and dimmed, so the transcript reads down the left edge. The usage line is the session's
 * total, its sub-agents included (`sessionUsage`), with each sub-agent's share below it.
 */
export function renderTimeline(
  io: CliIo,
  summary: SessionSummary,
  events: readonly SessionEvent[],
  usage: SessionUsage,
): void {
  const colors = paint(io);
  io.out(
    `${colors.bold(`Session ${terminalText(summary.sessionId)}`)} · ${summary.status} · ${summary.eventCount} events\n`,
  );
  const facts = [
    summary.agent ? `agent ${summary.agent}` : undefined,
    summary.model ? `model ${summary.model}` : undefined,
    `created ${summary.createdAt}`,
    `updated ${summary.updatedAt}`,
    summary.parentSessionId ? `forked from ${summary.parentSessionId} at seq ${summary.forkedAtSeq}` : undefined,
  ].filter(Boolean);
  io.out(`${colors.dim(terminalText(facts.join(" · ")))}\n\n`);
  let surfaceCount = 0;
  for (const event of events) {
    const seq = `#${String(event.seq).padStart(3)}`;
    const time = event.at.slice(11, 23);
    if (isSurfaceType(event.type)) {
      surfaceCount++;
      io.out(
        `${seq} ${time} ${colors.cyan("▌ surface    ")} ${colors.bold(event.type.padEnd(18))} ${summarizeEvent(event)}\n`,
      );
    } else {
      io.out(`${colors.dim(`${seq} ${time}   bookkeeping  ${event.type.padEnd(18)} ${summarizeEvent(event)}`)}\n`);
    }
  }
  io.out(
    `\n${surfaceCount} surface events (the model's messages), ${events.length - surfaceCount} bookkeeping events\n`,
  );
  io.out(`Usage: ${formatUsage(usage.total)}\n`);
  io.out(`Cost: ${formatCost(usage.cost).replace(/^cost /, "")}\n`);
  if (usage.children.length > 0) {
    io.out(`${colors.dim(`  own: ${formatUsage(usage.own)}`)}\n`);
    for (const child of usage.children) {
      io.out(`${colors.dim(`  sub-agent ${terminalText(child.sessionId)}: ${formatUsage(child.total)}`)}\n`);
    }
  }
  let state: unknown;
  try {
    state = projectDeps(events, {});
  } catch (error) {
    state = `(cannot be rebuilt: ${error instanceof Error ? error.message : error})`;
  }
  io.out(`State deps (rebuilt from the log): ${preview(state, 300)}\n`);
}
