import { hashArgs } from "../approvals/approvals.js";
import { type AgentIdentity, AgentMismatchError } from "../errors/agent-mismatch-error.js";
import type { JsonSchema } from "../models/model.js";
import type { ProviderTool } from "../models/provider-tool.js";
import type { EventDataMap, SessionEvent } from "../session/events.js";

/** What an agent's definition hash covers (see `agentDefinitionHash`). */
export interface AgentDefinition {
  /** Fixed instructions, or the function that computes them. */
  readonly instructions: string | ((...args: never[]) => unknown) | undefined;
  readonly tools: Iterable<{ readonly name: string; readonly description: string; readonly inputSchema: JsonSchema }>;
  /** The JSON Schema of the output type, when the agent has one. */
  readonly outputSchema: JsonSchema | undefined;
  /** Provider tools (hosted web search, ...): covered by id and options when there are any. */
  readonly providerTools?: readonly ProviderTool[];
}

/**
 * SHA-256 (hex) of what an agent tells its model and accepts from it: its instructions, each tool's
 * name, description and input JSON Schema (sorted by name), and its output type's JSON Schema.
 * Object keys are sorted first, so key order never matters. Instructions given as a function are
 * hashed by their source text (`Function.prototype.toString`): editing the function changes the
 * hash, values it reads at run time do not. Not covered: the model (a session may switch models,
 * and `run_started` records it anyway), the output mode, and tool behaviour (`execute`, approval,
 * idempotence, timeouts).
 *
 * @example
 * agentDefinitionHash({ instructions: "Be brief.", tools: [addTodo], outputSchema: undefined }); // "9c1f…"
 */
export function agentDefinitionHash(definition: AgentDefinition): string {
  const tools = [...definition.tools]
    .map((item) => ({ name: item.name, description: item.description, input: item.inputSchema }))
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const given = definition.instructions;
  const instructions =
    typeof given === "function" ? { function: Function.prototype.toString.call(given) } : (given ?? null);
  const hosted = definition.providerTools ?? [];
  return hashArgs({
    version: 1,
    instructions,
    tools,
    output: definition.outputSchema ?? null,
    ...(hosted.length > 0 ? { providerTools: hosted.map((item) => ({ id: item.id, args: item.args })) } : {}),
  });
}

/**
 * The agent a session's log names: the latest `run_started` (its `agent` and `agentHash`) or
 * `agent_changed` (its `to`), whichever is later; undefined for a session no run has started.
 *
 * @example
 * recordedAgent(await store.read("u42")); // { name: "support", hash: "9c1f…" }
 */
export function recordedAgent(events: readonly SessionEvent[]): AgentIdentity | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === "run_started") {
      const data = event.data as { agent?: unknown; agentHash?: unknown };
      return identity(data.agent, data.agentHash);
    }
    if (event?.type === "agent_changed") {
      const to = (event.data as { to?: { name?: unknown; hash?: unknown } }).to;
      return identity(to?.name, to?.hash);
    }
  }
  return undefined;
}

function identity(name: unknown, hash: unknown): AgentIdentity {
  return {
    ...(typeof name === "string" ? { name } : {}),
    ...(typeof hash === "string" ? { hash } : {}),
  };
}

/**
 * Whether `given` is the agent `recorded` names: same name and same definition hash. A session
 * recorded before agents were hashed (no hash) is checked by name only, and not at all when its
 * runs named no agent either.
 */
export function isRecordedAgent(recorded: AgentIdentity, given: AgentIdentity): boolean {
  if (recorded.hash === undefined) return recorded.name === undefined || recorded.name === given.name;
  return recorded.name === given.name && recorded.hash === given.hash;
}

/**
 * The `AgentMismatchError` a continue or resume of this session with `given` would be refused
 * with, or undefined when `given` is the session's agent (or the session names none). Lets a caller
 * check before it records anything else (an approval decision, say).
 *
 * @example
 * const mismatch = agentMismatch("u42", await store.read("u42"), agent.identity);
 * if (mismatch) throw mismatch; // before decideApproval
 */
export function agentMismatch(
  sessionId: string,
  events: readonly SessionEvent[],
  given: AgentIdentity,
): AgentMismatchError | undefined {
  const recorded = recordedAgent(events);
  if (recorded === undefined || isRecordedAgent(recorded, given)) return undefined;
  return new AgentMismatchError({ sessionId, recorded, given });
}

/**
 * Checks that a session goes on with the agent that ran it: undefined when it does, the data of the
 * `agent_changed` event to record when it does not and the caller allowed it (`allowAgentChange`),
 * else `AgentMismatchError`.
 */
export function agentChange(
  sessionId: string,
  events: readonly SessionEvent[],
  given: AgentIdentity & { readonly hash: string },
  allow: true | { readonly reason: string } | undefined,
): EventDataMap["agent_changed"] | undefined {
  const mismatch = agentMismatch(sessionId, events, given);
  if (mismatch === undefined) return undefined;
  if (allow === undefined) throw mismatch;
  return { from: mismatch.recorded, to: given, ...(allow === true ? {} : { reason: allow.reason }) };
}
