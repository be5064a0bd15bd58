import type { ContextUpdate } from "../context/context-update.js";
import type { Model } from "../models/model.js";
import type { AgentContext } from "../session/agent-context.js";
import { RunContext } from "../session/run-context.js";
import type { Usage } from "../session/usage.js";
import type { AnyTool } from "../tools/tool.js";
import type { OutputSpec } from "./output-spec.js";
import type { AgentHooks, AgentOptions, UsageLimits } from "./types.js";

/** Everything fixed for the length of one run. */
export interface RunConfig<D extends object, O> {
  readonly runId: string;
  readonly model: Model;
  readonly tools: ReadonlyMap<string, AnyTool<D>>;
  readonly output: OutputSpec<O> | undefined;
  readonly options: AgentOptions<D, O>;
  readonly hooks: AgentHooks<D>;
  readonly limits: UsageLimits;
  readonly maxIterations: number;
  readonly outputRetries: number;
  readonly streaming: boolean;
  readonly signal: AbortSignal | undefined;
}

/**
 * The loop's moving parts. The context (log, deps) itself is immutable; the state holds the current
 * one. Every event the run records goes through `context` transitions made here and in the stages.
 */
export class RunState<D extends object, O> {
  context: AgentContext<D>;
  usage: Usage;
  iteration = 0;
  outputFailures = 0;
  readonly toolFailures = new Map<string, number>();

  constructor(
    readonly config: RunConfig<D, O>,
    context: AgentContext<D>,
  ) {
    this.context = context;
    this.usage = context.usage;
  }

  /** Records a bookkeeping event. */
  record(type: string, data: unknown): void {
    this.context = this.context.logEvent(type, data);
  }

  /** Folds an update into deps through the one reducer and records it (throws, changing nothing, on a bad update). */
  applyUpdate(update: ContextUpdate<D>, source: { toolCallId: string; toolName: string }): void {
    this.context = update.apply(this.context, source);
  }

  /** The context a tool or hook receives. */
  runContext(call?: { toolCallId: string; toolName: string; signal?: AbortSignal; deps?: D }): RunContext<D> {
    return RunContext.create({
      deps: call?.deps ?? this.context.deps,
      retry: call ? (this.toolFailures.get(call.toolName) ?? 0) : this.outputFailures,
      usage: this.usage,
      signal: call?.signal ?? this.config.signal,
      toolCallId: call?.toolCallId,
      toolName: call?.toolName,
      runId: this.config.runId,
    });
  }
}
