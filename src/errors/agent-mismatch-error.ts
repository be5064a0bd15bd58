import { UserError } from "./nous-error.js";

/** Which agent a session names: its `name` and its definition hash (see `Agent.identity`). */
export interface AgentIdentity {
  /** The agent's `name`; absent for an unnamed agent. */
  readonly name?: string;
  /** SHA-256 of the agent's definition; absent in sessions recorded before agents were hashed. */
  readonly hash?: string;
}

/** "agent "support" (definition 3f2a9c1b07de)", for messages. */
export function describeAgent(identity: AgentIdentity): string {
  const name = identity.name === undefined ? "an unnamed agent" : `agent "${identity.name}"`;
  return identity.hash === undefined ? name : `${name} (definition ${identity.hash.slice(0, 12)})`;
}

/**
 * A session was continued or resumed with another agent than the one that ran it: another name, or
 * other instructions, tools or output type (another definition hash). Nothing was written. Use the
 * agent that ran the session, or pass `allowAgentChange` to record the change (`agent_changed`).
 *
 * @example
 * try {
 *   await agent.resume("u42", { store });
 * } catch (error) {
 *   if (error instanceof AgentMismatchError) console.log(error.recorded.name, error.given.name);
 * }
 */
export class AgentMismatchError extends UserError {
  readonly code = "agent_mismatch";
  readonly sessionId: string;
  /** The agent the session's log names. */
  readonly recorded: AgentIdentity;
  /** The agent that was asked to continue it. */
  readonly given: AgentIdentity;

  constructor(fields: { sessionId: string; recorded: AgentIdentity; given: AgentIdentity }) {
    super({
      message: `Session "${fields.sessionId}" was run by ${describeAgent(fields.recorded)}, not by ${describeAgent(fields.given)}: continue it with the agent that ran it, or pass allowAgentChange to record the change`,
    });
    this.sessionId = fields.sessionId;
    this.recorded = fields.recorded;
    this.given = fields.given;
  }
}
