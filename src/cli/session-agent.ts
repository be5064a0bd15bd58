import { type AgentIdentity, agentMismatch, type SessionEvent } from "../index.js";
import { type AgentSource, type AnyAgent, chosenModel, loadAgentSource } from "./agent-loader.js";
import { CliExit, EXIT } from "./cli-support.js";

/** The options a command that resumes a session takes to name its agent. */
export interface SessionAgentOptions {
  readonly agent?: string;
  readonly export?: string;
  readonly model?: string;
  readonly "allow-agent-change"?: boolean;
}

/** `agent "mailer" (definition 3f2a9c1b07de)`. */
function describe(identity: AgentIdentity): string {
  const name = identity.name === undefined ? "an unnamed agent" : `agent "${identity.name}"`;
  return identity.hash === undefined ? name : `${name} (definition ${identity.hash.slice(0, 12)})`;
}

/**
 * Loads the agent a command resumes a session with (`--agent FILE`, else the built-in assistant) and
 * checks that it is the agent the session's log names, before the command records anything. Refused
 * with exit code 2 and a message naming both agents and what to pass, unless `--allow-agent-change`
 * (the resume then records `agent_changed`).
 */
export async function loadSessionAgent(
  sessionId: string,
  events: readonly SessionEvent[],
  options: SessionAgentOptions,
): Promise<{ source: AgentSource; agent: AnyAgent }> {
  const source = await loadAgentSource(options.agent, options.export);
  const agent = await source.build({ model: chosenModel(options.model) });
  const mismatch = agentMismatch(sessionId, events, agent.identity);
  if (mismatch !== undefined && options["allow-agent-change"] !== true) {
    const given =
      options.agent === undefined ? "the built-in assistant" : `${describe(mismatch.given)} from "${options.agent}"`;
    throw new CliExit(
      EXIT.usage,
      `Session "${sessionId}" was run by ${describe(mismatch.recorded)}, not by ${given}: pass --agent FILE with the file of the agent that ran it (or --allow-agent-change to record a change of agent). Nothing was recorded.`,
    );
  }
  return { source, agent };
}
