import type { AgentStreamEvent } from "../runner/agent-stream-event.js";
import type { Prompt } from "../runner/types.js";
import type { RunArguments } from "./run-options.js";

/**
 * What running an agent from inside another run needs of it (an `Agent` is one): sub-agents depend
 * on this, not on the `Agent` class, so the agent module can offer `asTool` without a circle.
 */
export interface RunnableAgent<D extends object, O> {
  readonly name: string | undefined;
  stream(prompt: Prompt, ...args: RunArguments<D>): AsyncIterable<AgentStreamEvent<O, D>>;
}
