import type { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { NousError } from "../errors/nous-error.js";
import { CancelledError } from "../errors/run-errors.js";
import type { Prompt, RunResult, UsageLimits } from "../runner/types.js";
import type { RunContext } from "../session/run-context.js";
import { emptyUsage, type Usage } from "../session/usage.js";
import type { InferSchema, SchemaInput } from "../tools/schema.js";
import { type Tool, tool } from "../tools/tool.js";
import { usageFromLog } from "./child-usage.js";
import { type DefaultSubAgentInput, defaultSubAgentInput } from "./default-input.js";
import { SubAgentContextError, SubAgentFailedError } from "./errors.js";
import { runChild } from "./run-child.js";

export type { DefaultSubAgentInput } from "./default-input.js";
export { SubAgentContextError, SubAgentFailedError, SubAgentToolsError } from "./errors.js";

/** `deps` is required when the child's deps type has required keys. */
type ChildDepsOption<PD extends object, CD extends object> = {} extends CD
  ? { deps?: (context: RunContext<PD>) => CD }
  : { deps: (context: RunContext<PD>) => CD };

/** Options of `agentAsTool` / `agent.asTool`. */
export type AgentAsToolOptions<PD extends object, CD extends object, S extends SchemaInput = DefaultSubAgentInput> = {
  /** The tool's name, as the parent's model sees it. */
  name: string;
  description: string;
  /** The tool's input schema (default `{ prompt: string }`). */
  input?: S;
  /** The child's prompt from the tool's arguments (default: `args.prompt`, else the arguments as JSON). */
  prompt?: (args: InferSchema<S>) => Prompt;
  /** Usage limits of each child run. */
  usageLimits?: UsageLimits;
  /** The tool call (and with it the child run, through its abort signal) fails after this long. */
  timeoutMs?: number;
} & ChildDepsOption<PD, CD>;

/** Options of `delegate`. */
export type DelegateOptions<CD extends object> = {
  usageLimits?: UsageLimits;
  /** The name recorded for the child (default: the agent's name, else "sub-agent"). */
  agentName?: string;
} & ({} extends CD ? { deps?: CD } : { deps: CD });

/** `delegate` takes options; they are required only when the child's deps type has required keys. */
export type DelegateArguments<CD extends object> = {} extends CD
  ? [options?: DelegateOptions<CD>]
  : [options: DelegateOptions<CD>];

/** What a successful `delegate` produced. Return `update` from the tool so the parent's log records the child. */
export interface Delegation<O, CD extends object, PD extends object> {
  readonly output: O;
  /** The child's full result (its log, deps, messages, usage). */
  readonly result: RunResult<O, CD>;
  /** The child's session (`${parentSessionId}/${toolCallId}`), or null when the parent has no store. */
  readonly childSessionId: string | null;
  readonly childRunId: string;
  /** What the child used; already added to the parent run's usage. */
  readonly usage: Usage;
  /** `subagent_started` and `subagent_completed` for the parent's log. */
  readonly update: ContextUpdate<PD>;
}

/**
 * Runs `agent` as a sub-agent of the run whose tool is executing, from inside that tool's `execute`.
 *
 * - The child gets its own session `${parentSessionId}/${toolCallId}` in the parent's store (none
 *   when the parent has no store; a second delegation from the same tool call gets `….2`, then
 *   `….3`); its `run_started` records the parent's session and tool call.
 * - Every tool of the child must be one the parent allows (`context.seam.toolNames`).
 * - The child's usage is added to the parent run's usage exactly once, also when it fails.
 * - The parent's abort signal (and the tool's timeout) reaches the child; nesting is bounded by
 *   `maxDepth` (default 3).
 *
 * Resolves with the child's output and an `update` to return from the tool. Rejects with
 * `SubAgentFailedError` (carrying `update` with `subagent_failed`, the child's `usage` and `log`)
 * when the child fails, or with the child's `CancelledError` when the parent run was cancelled.
 *
 * @example
 * execute: async ({ topic }, context) => {
 *   const child = await delegate(context, researcher, `Find sources on ${topic}`);
 *   return { result: child.output, update: child.update };
 * }
 */
export async function delegate<PD extends object, CD extends object, O>(
  context: RunContext<PD>,
  agent: Agent<CD, O>,
  prompt: Prompt,
  ...[options]: DelegateArguments<CD>
): Promise<Delegation<O, CD, PD>> {
  const seam = context.seam;
  const toolCallId = context.toolCallId;
  if (seam === undefined || toolCallId === undefined) {
    throw new SubAgentContextError({
      message: "delegate must be called from a tool running inside an agent run (the context has no run seam)",
    });
  }
  const label = options?.agentName ?? agent.name ?? "sub-agent";
  const childSessionId =
    seam.store === undefined
      ? null
      : `${context.sessionId ?? context.runId ?? "run"}/${toolCallId}${delegationSuffix(seam, toolCallId)}`;
  const childRunId = crypto.randomUUID();
  const started = ContextUpdate.new<PD>().logEvent("subagent_started", {
    childSessionId,
    childRunId,
    agent: label,
    toolCallId,
    depth: seam.depth + 1,
  });
  let result: RunResult<O, CD>;
  try {
    result = await runChild(
      agent,
      label,
      prompt,
      {
        ...(options?.deps === undefined ? {} : { deps: options.deps }),
        signal: context.signal,
        runId: childRunId,
        ...(options?.usageLimits === undefined ? {} : { usageLimits: options.usageLimits }),
        ...(childSessionId === null ? {} : { sessionId: childSessionId }),
        parent: { seam, toolCallId, ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }) },
      } as Parameters<typeof runChild<CD, O>>[3],
      seam.toolNames,
    );
  } catch (error) {
    const log = NousError.isInstance(error) ? error.log : undefined;
    const usage = log === undefined ? emptyUsage : usageFromLog(log, childRunId);
    seam.addUsage(usage);
    if (error instanceof CancelledError || context.signal.aborted) throw error;
    const childCode = NousError.isInstance(error) ? error.code : "unexpected_error";
    const message = error instanceof Error ? error.message : String(error);
    const update = started.logEvent("subagent_failed", {
      childSessionId,
      childRunId,
      usage,
      error: { code: childCode, message },
    });
    const failed = new SubAgentFailedError({
      agent: label,
      childCode,
      childSessionId,
      usage,
      update: update as unknown as ContextUpdate<object>,
      cause: error,
    });
    if (log !== undefined) failed.log = log;
    throw failed;
  }
  seam.addUsage(result.usage);
  const update = started.logEvent("subagent_completed", {
    childSessionId,
    childRunId,
    usage: result.usage,
    output: result.output,
  });
  return { output: result.output, result, childSessionId, childRunId, usage: result.usage, update };
}

/**
 * A tool that runs `agent` as a sub-agent when the parent's model calls it (see `delegate` for the
 * semantics). The child's output is the tool's result. When the child fails — depth limit, a tool
 * the parent does not allow, its own error — the parent's model gets `Sub-agent "…" failed (code): …`
 * as the result and the parent's log gets `subagent_failed`; the parent run goes on. Cancellation of
 * the parent run cancels the child and fails the parent run as usual.
 *
 * @example
 * const research = agentAsTool(researcher, { name: "research", description: "Research a topic" });
 * const lead = new Agent({ model, tools: [research, search] }); // researcher's tools ⊆ [research, search]
 */
export function agentAsTool<
  CD extends object,
  O,
  PD extends object = Record<string, unknown>,
  S extends SchemaInput = DefaultSubAgentInput,
>(agent: Agent<CD, O>, options: AgentAsToolOptions<PD, CD, S>): Tool<InferSchema<S>, O | string, PD> {
  const label = agent.name ?? options.name;
  return tool<S, O | string, PD>({
    name: options.name,
    description: options.description,
    input: (options.input ?? defaultSubAgentInput) as S,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    execute: async (args, context) => {
      const prompt = options.prompt ? options.prompt(args) : defaultPrompt(args);
      const deps = options.deps?.(context);
      const delegateOptions = {
        agentName: label,
        ...(deps === undefined ? {} : { deps }),
        ...(options.usageLimits === undefined ? {} : { usageLimits: options.usageLimits }),
      } as DelegateOptions<CD>;
      try {
        const child = await delegate(context, agent, prompt, ...([delegateOptions] as DelegateArguments<CD>));
        return { result: child.output, update: child.update };
      } catch (error) {
        if (!(error instanceof SubAgentFailedError)) throw error;
        return { result: error.message, update: error.update as unknown as ContextUpdate<PD> };
      }
    },
  });
}

/** Delegations per tool call of a run: the first gets no suffix, later ones `.2`, `.3`, … (program order). */
const delegations = new WeakMap<object, Map<string, number>>();

function delegationSuffix(seam: object, toolCallId: string): string {
  const counts = delegations.get(seam) ?? new Map<string, number>();
  delegations.set(seam, counts);
  const count = (counts.get(toolCallId) ?? 0) + 1;
  counts.set(toolCallId, count);
  return count === 1 ? "" : `.${count}`;
}

function defaultPrompt(args: unknown): Prompt {
  const prompt = (args as { prompt?: unknown } | null)?.prompt;
  return typeof prompt === "string" ? prompt : JSON.stringify(args);
}
