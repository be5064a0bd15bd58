/**
 * OpenTelemetry traces of Nous runs, following the GenAI semantic conventions
 * (`invoke_agent` → `chat` / `execute_tool` spans), derived from the session log
 * (optional peer: `npm install @opentelemetry/api@1`). See the README's "Tracing with OpenTelemetry".
 *
 * @example
 * import { exportSessionTrace, openTelemetry } from "nous/telemetry";
 * const agent = new Agent({ model, telemetry: openTelemetry() }); // live: each run's spans when it ends
 * await exportSessionTrace(store, "u42"); // after the fact: the same spans from the stored log
 */
export {
  type ExportSessionTraceOptions,
  exportSessionTrace,
  type OpenTelemetryOptions,
  openTelemetry,
  type SessionTraceExport,
} from "./telemetry/open-telemetry.js";
export type { PlannedSpan, PlannedSpanEvent, SpanAttributes, SpanAttributeValue } from "./telemetry/planned-span.js";
export {
  type PlannedRun,
  type PlanOptions,
  planSession,
  type RunOutcome,
  type SessionPlan,
} from "./telemetry/span-builder.js";
