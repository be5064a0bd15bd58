import type { AgentStream } from "../runner/agent-stream-event.js";
import type { Prompt, RunResult } from "../runner/types.js";
import type { ResumeArguments, RunArguments } from "./run-options.js";

/**
 * What running an agent from inside another run needs of it (an `Agent` is one): sub-agents depend
 * on this, not on the `Agent` class, so the agent module can offer `asTool` without a circle.
 */
export interface RunnableAgent<D extends object, O> {
  readonly name: string | undefined;
  /** The names of its tools: a sub-agent's must be ones its parent allows. */
  readonly toolNames: readonly string[];
  stream(prompt: Prompt, ...args: RunArguments<D>): AgentStream<O, D>;
  resume(sessionId: string, ...args: ResumeArguments<D>): Promise<RunResult<O, D>>;
}
