import { DefinitionError } from "./errors/user-errors.js";
import type { Model } from "./models/model.js";
import { resolveModel } from "./models/registry.js";
import type { AgentStreamEvent } from "./runner/agent-stream-event.js";
import { OUTPUT_TOOL_NAME, type OutputSpec, resolveOutputSpec } from "./runner/output-spec.js";
import { runLoop } from "./runner/run-loop.js";
import { RunState } from "./runner/run-state.js";
import type { AgentOptions, Prompt, RunOptions, RunResult } from "./runner/types.js";
import { AgentContext } from "./session/agent-context.js";
import { type AnyTool, indexTools } from "./tools/tool.js";

/** `run`/`stream` take options; they are required only when the deps type has required keys. */
export type RunArguments<D extends object> = {} extends D ? [options?: RunOptions<D>] : [options: RunOptions<D>];

/**
 * An agent: a model, instructions, tools and an optional output type. Runs are independent; each
 * keeps its own session log.
 *
 * @example
 * const agent = new Agent({ model: "test", instructions: "Be brief.", tools: [addTodo] });
 * const result = await agent.run("Remind me to buy milk", { deps: { todos: [] } });
 * result.output; result.deps.todos; result.log;
 */
export class Agent<D extends object = Record<string, unknown>, O = string> {
  readonly name: string | undefined;
  readonly model: Model;
  readonly #options: AgentOptions<D, O>;
  readonly #tools: ReadonlyMap<string, AnyTool<D>>;
  readonly #output: OutputSpec<O> | undefined;

  constructor(options: AgentOptions<D, O>) {
    this.#options = options;
    this.name = options.name;
    this.model = resolveModel(options.model);
    this.#tools = indexTools(options.tools ?? [], options.outputType ? [OUTPUT_TOOL_NAME] : []);
    this.#output = resolveOutputSpec(options.outputType, options.outputMode ?? "auto", this.model);
    for (const key of ["maxIterations", "outputRetries"] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
        throw new DefinitionError({ message: `Agent option ${key} must be a whole number >= 0, got ${value}` });
      }
    }
  }

  /** Runs the agent to its final answer. Rejects with a typed error (carrying the log) on failure. */
  async run(prompt: Prompt, ...[options]: RunArguments<D>): Promise<RunResult<O, D>> {
    const events = this.#events(prompt, options, false);
    let next = await events.next();
    while (!next.done) next = await events.next();
    return next.value;
  }

  /**
   * Runs the agent and yields typed events as they happen (text deltas, tool calls and results,
   * context updates); the last event is `run-end` with the same result `run` would give.
   *
   * @example
   * for await (const event of agent.stream("Hi")) {
   *   if (event.type === "text-delta") process.stdout.write(event.text);
   * }
   */
  stream(prompt: Prompt, ...[options]: RunArguments<D>): AsyncIterable<AgentStreamEvent<O, D>> {
    return { [Symbol.asyncIterator]: () => this.#streamEvents(prompt, options) };
  }

  async *#streamEvents(prompt: Prompt, options: RunOptions<D> | undefined): AsyncGenerator<AgentStreamEvent<O, D>> {
    const result = yield* this.#events(prompt, options, true);
    yield { type: "run-end", result };
  }

  #events(
    prompt: Prompt,
    options: RunOptions<D> | undefined,
    streaming: boolean,
  ): AsyncGenerator<AgentStreamEvent<O, D>, RunResult<O, D>> {
    const agent = this.#options;
    const context = AgentContext.create<D>({
      deps: (options?.deps ?? {}) as D,
      name: agent.name,
      now: agent.now,
    });
    const state = new RunState<D, O>(
      {
        runId: options?.runId ?? crypto.randomUUID(),
        model: this.model,
        tools: this.#tools,
        output: this.#output,
        options: agent,
        hooks: agent.hooks ?? {},
        limits: { ...agent.usageLimits, ...options?.usageLimits },
        maxIterations: agent.maxIterations ?? 10,
        outputRetries: agent.outputRetries ?? 2,
        streaming,
        signal: options?.signal,
      },
      context,
    );
    return runLoop(state, prompt, options?.messageHistory ?? []);
  }
}
