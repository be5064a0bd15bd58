import type { Context, Tracer } from "@opentelemetry/api";
import type { RunTelemetry } from "../agent/run-telemetry-port.js";
import type { SessionStore } from "../store/session-store.js";
import { emitSpans } from "./emit-spans.js";
import { otel } from "./otel-api.js";
import { planSessionTree, readSessionTree } from "./session-tree.js";

/** The instrumentation scope's version: the version of Nous (package.json's, kept in step by a test). */
export const TRACER_VERSION = "0.1.0";

/** Options of `openTelemetry` and `exportSessionTrace`. */
export interface OpenTelemetryOptions {
  /** Where spans go (default: `trace.getTracer("nous", version)` of the global tracer provider). */
  readonly tracer?: Tracer;
  /**
   * Add message content as attributes (default false): `gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`, as JSON taken from the session log (secrets already replaced).
   */
  readonly captureContent?: boolean;
}

/** Options of `exportSessionTrace`. */
export interface ExportSessionTraceOptions extends OpenTelemetryOptions {
  /** The context whose active span each run's span is a child of (default: none, a new trace per run). */
  readonly context?: Context;
}

/** What `exportSessionTrace` emitted: each run's span (as trace and span ids) and the number of spans. */
export interface SessionTraceExport {
  readonly runs: readonly { readonly runId: string; readonly traceId: string; readonly spanId: string }[];
  readonly spanCount: number;
}

/**
 * The agent option `telemetry` for OpenTelemetry: when a run ends (completed, paused, failed, or
 * stopped by its stream's reader), its spans are derived from its part of the session log, with the
 * recorded times, and emitted through the tracer, the run's span a child of the span that was
 * active where `run`/`stream`/`resume` was called. The spans are those `exportSessionTrace` gives
 * for the same run. A sub-agent's runs (from the store) are part of its parent's tree.
 *
 * @example
 * import { openTelemetry } from "nous/telemetry";
 * const agent = new Agent({ name: "support", model: "openai:gpt-4o", telemetry: openTelemetry() });
 * await agent.run("Where is my order?", { sessionId: "u42" }); // one invoke_agent span, its chat and execute_tool spans
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): RunTelemetry {
  return {
    runStarting() {
      const parent = otel.context.active();
      return {
        async runEnded(run) {
          const tree = await readSessionTree(run.store, run.sessionId, run.events);
          const tracer = tracerOf(options);
          for (const planned of planSessionTree(tree, options)) {
            if (planned.index >= run.from) emitSpans(tracer, planned.span, parent);
          }
        },
      };
    },
  };
}

/**
 * Emits the spans of a stored session's runs, its sub-agent sessions' runs inside them, with the
 * times the log recorded: one tree per run (a root span, unless `context` holds an active span).
 * For a run that was traced live, the same tree; for a run that crashed, the tree of what its log
 * holds, the spans it left open marked `nous.unfinished`.
 *
 * @example
 * import { exportSessionTrace } from "nous/telemetry";
 * const { runs, spanCount } = await exportSessionTrace(store, "u42", { captureContent: true });
 * runs[0]?.traceId; // the trace of the session's first run
 */
export async function exportSessionTrace(
  store: SessionStore,
  sessionId: string,
  options: ExportSessionTraceOptions = {},
): Promise<SessionTraceExport> {
  const tree = await readSessionTree(store, sessionId);
  const tracer = tracerOf(options);
  const parent = options.context ?? otel.ROOT_CONTEXT;
  const runs: { runId: string; traceId: string; spanId: string }[] = [];
  let spanCount = 0;
  for (const planned of planSessionTree(tree, options)) {
    const { span, count } = emitSpans(tracer, planned.span, parent);
    const { traceId, spanId } = span.spanContext();
    runs.push({ runId: planned.runId, traceId, spanId });
    spanCount += count;
  }
  return { runs, spanCount };
}

function tracerOf(options: OpenTelemetryOptions): Tracer {
  return options.tracer ?? otel.trace.getTracer("nous", TRACER_VERSION);
}
