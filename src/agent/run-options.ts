import type { InDoubtResolver } from "../runner/run-state.js";
import type { LeaseSettings, RunOptions } from "../runner/types.js";
import type { RunSeam } from "../session/run-seam.js";
import type { SessionStore } from "../store/session-store.js";

/** Links a run to the tool call of a parent run that started it (a sub-agent). */
export interface ParentRun {
  /** The parent run's seam (`context.seam` in the delegating tool). */
  readonly seam: RunSeam;
  readonly sessionId?: string;
  /** The parent run's id: a parent run re-running its call (after a pause) finds its child by it. */
  readonly runId?: string;
  readonly toolCallId: string;
}

/** Run options with a session: events are committed to `store` as the run goes. */
export type SessionRunOptions<D extends object> = RunOptions<D> & {
  /** Set when this run is a sub-agent of another run: depth is checked and the link recorded. */
  parent?: ParentRun;
  /** Continue (or start) this session; its log is loaded and state deps are rebuilt from it. */
  sessionId?: string;
  /** Where the session lives (default: SQLite at `.nous/sessions.db`). */
  store?: SessionStore;
  /** The lease this session run holds (default: the agent's `lease`, else a 30 s ttl). */
  lease?: LeaseSettings;
  /**
   * Continue or resume a session that another agent ran (another name or definition hash, see
   * `Agent.identity`), recording the change as an `agent_changed` event. Without it, that is refused
   * with `AgentMismatchError` and nothing is written.
   */
  allowAgentChange?: true | { readonly reason: string };
};

/** `run`/`stream` take options; they are required only when the deps type has required keys. */
export type RunArguments<D extends object> = {} extends D
  ? [options?: SessionRunOptions<D>]
  : [options: SessionRunOptions<D>];

/** `resume` takes options; they are required only when the deps type has required keys. */
export type ResumeArguments<D extends object> = {} extends D
  ? [options?: ResumeOptions<D>]
  : [options: ResumeOptions<D>];

/** Options of `agent.resume`. Live deps are supplied again; state deps come back from the log. */
export type ResumeOptions<D extends object> = Omit<SessionRunOptions<D>, "sessionId" | "runId" | "messageHistory"> & {
  /** Settles a started call of a non-idempotent tool that has no recorded result. Without it, `ToolInDoubtError`. */
  resolveInDoubt?: InDoubtResolver<D>;
};
