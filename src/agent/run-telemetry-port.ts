import type { SessionEvent } from "../session/events.js";
import type { SessionStore } from "../store/session-store.js";

/**
 * What an agent reports its runs to, so that traces can be derived from their logs: the agent
 * option `telemetry`. Nous core knows only this shape; `openTelemetry()` from `nous/telemetry`
 * makes one that emits OpenTelemetry spans.
 *
 * @example
 * import { openTelemetry } from "nous/telemetry";
 * const agent = new Agent({ model, telemetry: openTelemetry() });
 */
export interface RunTelemetry {
  /**
   * Called synchronously when `run`, `stream` or `resume` is called, in the caller's async context
   * (so it can take the caller's active span as the run's parent). Not called for a sub-agent's run:
   * that run is part of its parent run's trace.
   */
  runStarting(): RunTelemetryScope;
}

/** One run's telemetry, from its start to its end. */
export interface RunTelemetryScope {
  /**
   * Called once when the run ends, however it ends: completed, paused, failed, interrupted by a
   * store failure, or stopped by a stream reader that left. A rejection is ignored: telemetry never
   * changes a run's result.
   */
  runEnded(run: EndedRun): Promise<void>;
}

/** A run that ended, as its telemetry sees it. */
export interface EndedRun {
  readonly sessionId: string | undefined;
  /** The store the session lives in (its sub-agent sessions too). */
  readonly store: SessionStore | undefined;
  /** The session's log as the run left it (the whole session, earlier runs included). */
  readonly events: readonly SessionEvent[];
  /** Index in `events` of this run's first event: events before it were in the log when it started. */
  readonly from: number;
}
