import type { ResumeArguments, ResumeOptions, RunArguments, SessionRunOptions } from "../agent/run-options.js";
import type { RunnableAgent } from "../agent/runnable-agent.js";
import { OUTPUT_TOOL_NAME } from "../runner/output-spec.js";
import type { Prompt, RunResult } from "../runner/types.js";
import { SubAgentToolsError } from "./errors.js";

/** The child's tool names, when the agent exposes them (`agent.toolNames`). */
export function toolNamesOf(agent: object): readonly string[] | undefined {
  const names = (agent as { readonly toolNames?: unknown }).toolNames;
  return Array.isArray(names) ? (names as string[]) : undefined;
}

/** Throws `SubAgentToolsError` unless every name is allowed. */
export function checkToolSubset(agent: string, toolNames: readonly string[], allowed: readonly string[]): void {
  const extra = toolNames.filter((name) => name !== OUTPUT_TOOL_NAME && !allowed.includes(name));
  if (extra.length > 0) throw new SubAgentToolsError({ agent, toolNames: extra, allowed });
}

/**
 * Runs the child to its result. The child's tools are checked against `allowed` before it starts
 * when the agent exposes its tool names; otherwise each tool call of the child's model is checked as
 * it streams in, before it can run, and a disallowed one is thrown into the run (which records
 * `run_failed` and rejects with `SubAgentToolsError` carrying the child's log).
 */
export async function runChild<D extends object, O>(
  agent: RunnableAgent<D, O>,
  label: string,
  prompt: Prompt,
  options: SessionRunOptions<D>,
  allowed: readonly string[],
): Promise<RunResult<O, D>> {
  const declared = toolNamesOf(agent);
  if (declared !== undefined) checkToolSubset(label, declared, allowed);
  const stream = agent.stream(prompt, ...([options] as RunArguments<D>));
  const iterator = stream[Symbol.asyncIterator]();
  let next = await iterator.next();
  while (!next.done) {
    const event = next.value;
    if (declared === undefined && event.kind === "delta" && event.type === "tool-call-end") {
      try {
        checkToolSubset(label, [event.toolName], allowed);
      } catch (error) {
        next = await iterator.throw(error);
        continue;
      }
    }
    next = await iterator.next();
  }
  return stream.result;
}

/**
 * Resumes a child run that paused (its approval is decided) or was interrupted, from its session:
 * the child's tools are checked against `allowed` first, as for a new child.
 */
export async function resumeChild<D extends object, O>(
  agent: RunnableAgent<D, O>,
  label: string,
  sessionId: string,
  options: ResumeOptions<D>,
  allowed: readonly string[],
): Promise<RunResult<O, D>> {
  checkToolSubset(label, agent.toolNames, allowed);
  return agent.resume(sessionId, ...([options] as ResumeArguments<D>));
}
