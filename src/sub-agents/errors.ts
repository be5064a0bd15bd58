import type { ContextUpdate } from "../context/context-update.js";
import { UserError } from "../errors/nous-error.js";
import { ToolFailedError } from "../errors/tool-failed-error.js";
import type { Usage } from "../session/usage.js";

/**
 * A sub-agent has a tool its parent run does not allow: every tool of a child must be among the
 * parent's tools (`context.seam.toolNames`). Raised before the child's first model request when the
 * child's tool names are known, otherwise as soon as the child's model calls such a tool (before it runs).
 */
export class SubAgentToolsError extends UserError {
  readonly code = "subagent_tool_not_allowed";
  readonly toolNames: readonly string[];
  readonly allowed: readonly string[];

  constructor(fields: { agent: string; toolNames: readonly string[]; allowed: readonly string[] }) {
    super({
      message: `Sub-agent "${fields.agent}" may only use tools its parent allows; not allowed: ${fields.toolNames.join(", ")} (allowed: ${fields.allowed.join(", ") || "none"})`,
    });
    this.toolNames = fields.toolNames;
    this.allowed = fields.allowed;
  }
}

/** `delegate` was called outside a tool running inside an agent run (no `context.seam`). */
export class SubAgentContextError extends UserError {
  readonly code = "subagent_without_run";
}

/**
 * A sub-agent's run failed. `cause` is the child's own error; `update` records `subagent_started`
 * and `subagent_failed` in the parent's log; `usage` is what the child used (already added to the
 * parent run's usage); `log` is the child's log up to the failure. A `ToolFailedError`: thrown out
 * of the delegating tool, the parent run records the update and the call's failure.
 */
export class SubAgentFailedError extends ToolFailedError<object> {
  override readonly code = "subagent_failed";
  /** The child's error code (`depth_limit_exceeded`, `subagent_tool_not_allowed`, `max_iterations_exceeded`, …). */
  readonly childCode: string;
  readonly agent: string;
  readonly childSessionId: string | null;
  readonly usage: Usage;
  declare readonly update: ContextUpdate<object>;

  constructor(fields: {
    agent: string;
    childCode: string;
    childSessionId: string | null;
    usage: Usage;
    update: ContextUpdate<object>;
    cause: unknown;
  }) {
    const reason = fields.cause instanceof Error ? fields.cause.message : String(fields.cause);
    super(`Sub-agent "${fields.agent}" failed (${fields.childCode}): ${reason}`, {
      update: fields.update,
      cause: fields.cause,
    });
    this.agent = fields.agent;
    this.childCode = fields.childCode;
    this.childSessionId = fields.childSessionId;
    this.usage = fields.usage;
  }
}
