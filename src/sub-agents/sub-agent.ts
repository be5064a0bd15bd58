import type { ResumeOptions } from "../agent/run-options.js";
import type { RunnableAgent } from "../agent/runnable-agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { noCost, type RunCost } from "../cost/recorded-cost.js";
import { NousError } from "../errors/nous-error.js";
import { ApprovalPendingError, CancelledError } from "../errors/run-errors.js";
import type { Prompt, RunResult, UsageLimits } from "../runner/types.js";
import type { SessionEvent } from "../session/events.js";
import type { RunContext } from "../session/run-context.js";
import { emptyUsage, type Usage } from "../session/usage.js";
import type { SessionStore } from "../store/session-store.js";
import type { InferSchema, SchemaInput } from "../tools/schema.js";
import { type Tool, tool } from "../tools/tool.js";
import { costFromLog, usageFromLog } from "./child-usage.js";
import { type DefaultSubAgentInput, defaultSubAgentInput } from "./default-input.js";
import { findEarlierChild } from "./earlier-child.js";
import { SubAgentContextError, SubAgentFailedError } from "./errors.js";
import { resumeChild, runChild } from "./run-child.js";

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
 * - A child that pauses for approval pauses the parent run (`subagent_paused`; with a session
 *   store): its request is listed with its `path` from the root, and resuming the root runs this
 *   tool again, which resumes that child (or takes its result, when it completed meanwhile) instead
 *   of starting another. Whatever else the tool does before `delegate` must be safe to repeat.
 *
 * Resolves with the child's output and an `update` to return from the tool. Rejects with
 * `SubAgentFailedError` (carrying `update` with `subagent_failed`, the child's `usage` and `log`)
 * when the child fails — a `ToolFailedError`: let it out of the tool and the run records the update
 * and the call's failure — or with the child's `CancelledError` when the parent run was cancelled.
 *
 * @example
 * execute: async ({ topic }, context) => {
 *   const child = await delegate(context, researcher, `Find sources on ${topic}`);
 *   return { result: child.output, update: child.update };
 * }
 */
export async function delegate<PD extends object, CD extends object, O>(
  context: RunContext<PD>,
  agent: RunnableAgent<CD, O>,
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
  const parentRunId = context.runId;
  // The same call of the same parent run, running again (after a pause on the child's approval):
  // the child it started is resumed, or its recorded result taken — never a second child.
  const earlier =
    childSessionId === null || parentRunId === undefined || !seam.rerunning(toolCallId)
      ? undefined
      : await findEarlierChild(seam.store as SessionStore, {
          childSessionId,
          parentRunId,
          parentToolCallId: toolCallId,
        });
  const childRunId = earlier?.runId ?? crypto.randomUUID();
  const started = ContextUpdate.new<PD>().logEvent("subagent_started", {
    childSessionId,
    childRunId,
    agent: label,
    toolCallId,
    depth: seam.depth + 1,
  });
  const runOptions = {
    ...(options?.deps === undefined ? {} : { deps: options.deps }),
    signal: context.signal,
    ...(options?.usageLimits === undefined ? {} : { usageLimits: options.usageLimits }),
    parent: {
      seam,
      toolCallId,
      ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
      ...(parentRunId === undefined ? {} : { runId: parentRunId }),
    },
  };
  if (earlier?.type === "failed") {
    const usage = usageFromLog(earlier.log, childRunId);
    const cost = costFromLog(earlier.log, childRunId);
    seam.addUsage(usage, cost);
    const cause = new Error(earlier.error.message);
    const failure = {
      childSessionId,
      childRunId,
      usage,
      cost,
      code: earlier.error.code,
      cause,
      log: earlier.log,
      toolCallId,
    };
    throw childFailed(started, label, failure);
  }
  let result: RunResult<O, CD>;
  try {
    if (earlier?.type === "completed") result = earlier.result as RunResult<O, CD>;
    else if (earlier?.type === "unfinished") {
      const resumeOptions = runOptions as ResumeOptions<CD>;
      result = await resumeChild(agent, label, childSessionId as string, resumeOptions, seam.toolNames);
    } else {
      const newRun = {
        ...runOptions,
        runId: childRunId,
        ...(childSessionId === null ? {} : { sessionId: childSessionId }),
      } as Parameters<typeof runChild<CD, O>>[3];
      result = await runChild(agent, label, prompt, newRun, seam.toolNames);
    }
  } catch (error) {
    // The child waits for approval: so does the parent (its session lists the child's requests).
    if (error instanceof ApprovalPendingError && childSessionId !== null && context.sessionId !== undefined) {
      throw await seam.pauseForChild({ toolCallId, childSessionId, childRunId, agent: label, pending: error.pending });
    }
    const log = NousError.isInstance(error) ? error.log : undefined;
    const usage = log === undefined ? emptyUsage : usageFromLog(log, childRunId);
    const cost = log === undefined ? noCost : costFromLog(log, childRunId);
    seam.addUsage(usage, cost);
    if (error instanceof CancelledError || context.signal.aborted) throw error;
    const code = NousError.isInstance(error) ? error.code : "unexpected_error";
    throw childFailed(started, label, { childSessionId, childRunId, usage, cost, code, cause: error, log, toolCallId });
  }
  seam.addUsage(result.usage, result.cost);
  const update = started.logEvent("subagent_completed", {
    toolCallId,
    childSessionId,
    childRunId,
    usage: result.usage,
    cost: result.cost,
    output: result.output,
  });
  return { output: result.output, result, childSessionId, childRunId, usage: result.usage, update };
}

/**
 * A tool that runs `agent` as a sub-agent when the parent's model calls it (see `delegate` for the
 * semantics). The child's output is the tool's result. When the child fails — depth limit, a tool
 * the parent does not allow, its own error — the call fails (`SubAgentFailedError`): the parent's
 * log gets `subagent_failed`, the model an error result `Tool "…" failed: Sub-agent "…" failed
 * (code): …`, and the parent run goes on. A child waiting for approval pauses the parent (see
 * `delegate`). Cancellation of the parent run cancels the child and fails the parent run as usual.
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
>(agent: RunnableAgent<CD, O>, options: AgentAsToolOptions<PD, CD, S>): Tool<InferSchema<S>, O, PD> {
  const label = agent.name ?? options.name;
  return tool<S, O, PD>({
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
      // A failed child rejects with SubAgentFailedError, a ToolFailedError: the run records its update.
      const child = await delegate(context, agent, prompt, ...([delegateOptions] as DelegateArguments<CD>));
      return { result: child.output, update: child.update };
    },
  });
}

/** The error of a failed child: `update` records `subagent_started` and `subagent_failed` for the parent's log. */
function childFailed<PD extends object>(
  started: ContextUpdate<PD>,
  agent: string,
  fields: {
    childSessionId: string | null;
    childRunId: string;
    usage: Usage;
    cost: RunCost;
    code: string;
    cause: unknown;
    log: readonly SessionEvent[] | undefined;
    toolCallId: string;
  },
): SubAgentFailedError {
  const { childSessionId, childRunId, usage, cost, code, cause, log } = fields;
  const message = cause instanceof Error ? cause.message : String(cause);
  const update = started.logEvent("subagent_failed", {
    toolCallId: fields.toolCallId,
    childSessionId,
    childRunId,
    usage,
    cost,
    error: { code, message },
  });
  const failed = new SubAgentFailedError({
    agent,
    childCode: code,
    childSessionId,
    usage,
    update: update as unknown as ContextUpdate<object>,
    cause,
  });
  if (log !== undefined) failed.log = log;
  return failed;
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
