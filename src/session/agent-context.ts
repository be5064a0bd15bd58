import type { UpdateSource } from "../context/context-update.js";
import type { DepsOperation } from "../context/operations.js";
import { getLogger } from "../logger.js";
import { isSurfaceType } from "./events.js";
import type { Message, MessageInput } from "./messages.js";
import { SessionLog } from "./session-log.js";
import { emptyUsage, type Usage } from "./usage.js";

export interface AgentContextOptions<D> {
  deps: D;
  /** Messages to start from; each becomes a surface event. */
  messages?: readonly MessageInput[];
  /** A log to continue (its deps projection is the caller's business: pass the matching `deps`). */
  log?: SessionLog;
  name?: string;
  usage?: Usage;
  iteration?: number;
  /** The clock event times come from. */
  now?: () => Date;
}

interface State<D> {
  readonly deps: D;
  readonly log: SessionLog;
  readonly name: string | undefined;
  readonly usage: Usage;
  readonly iteration: number;
  readonly now: () => Date;
}

/**
 * The agent loop's state: the session log, the deps, usage and iteration. Immutable: every
 * transition returns a new context and leaves this one as it was.
 *
 * @example
 * let context = AgentContext.create({ deps: { todos: [] as string[] } });
 * context = context.addMessage({ role: "user", content: "hi" });
 * context = context.logEvent("audit", { by: "me" }); // bookkeeping: no message
 * context.messages; // [{ role: "user", content: "hi" }]
 */
export class AgentContext<D extends object = Record<string, unknown>> {
  readonly #state: State<D>;

  private constructor(state: State<D>) {
    this.#state = state;
    Object.freeze(this);
  }

  static create<D extends object = Record<string, unknown>>(options: AgentContextOptions<D>): AgentContext<D> {
    let context = new AgentContext<D>({
      deps: options.deps,
      log: options.log ?? SessionLog.empty(),
      name: options.name,
      usage: options.usage ?? emptyUsage,
      iteration: options.iteration ?? 0,
      now: options.now ?? (() => new Date()),
    });
    for (const message of options.messages ?? []) context = context.addMessage(message);
    return context;
  }

  get deps(): D {
    return this.#state.deps;
  }
  get log(): SessionLog {
    return this.#state.log;
  }
  /** The model's view: the projection of the log's surface events. */
  get messages(): readonly Message[] {
    return this.#state.log.messages;
  }
  get usage(): Usage {
    return this.#state.usage;
  }
  get iteration(): number {
    return this.#state.iteration;
  }
  get name(): string | undefined {
    return this.#state.name;
  }

  /**
   * Appends a bookkeeping event. Surface types (and `context_update`, which deps are rebuilt from)
   * are refused with a warning and the context is returned unchanged: this API never puts content
   * into the model's history.
   */
  logEvent(type: string, data: unknown = {}): AgentContext<D> {
    if (isSurfaceType(type) || type === "context_update") {
      getLogger().warn(
        `logEvent refused event type "${type}": ${type === "context_update" ? "context updates are recorded by applying a ContextUpdate" : "it is a surface type; use addMessage to add to the model's history"}`,
        { type },
      );
      return this;
    }
    return this.#append(type, data);
  }

  /** Appends the surface event matching the message's role. */
  addMessage(message: MessageInput): AgentContext<D> {
    switch (message.role) {
      case "user":
        return this.#append("user_message", { content: message.content });
      case "assistant":
        return this.#append("assistant_message", {
          content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
        });
      case "tool":
        return this.#append("tool_result", {
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          result: message.result,
          isError: message.isError ?? false,
        });
      case "system":
        return this.#append("system_message", { content: message.content });
      default: {
        const unhandled: never = message;
        throw new TypeError(`unknown message role ${JSON.stringify((unhandled as { role: unknown }).role)}`);
      }
    }
  }

  /**
   * Records a deps change: `deps` must be the fold of `operations` over the current deps (which is
   * what `ContextUpdate.apply` passes). Appends one `context_update` event.
   */
  withContextUpdate(deps: D, operations: readonly DepsOperation[], source?: UpdateSource): AgentContext<D> {
    const next = this.#append("context_update", { ...source, operations });
    return new AgentContext({ ...next.#state, deps });
  }

  /** A context with the given usage and iteration (the runner's bookkeeping). */
  withProgress(progress: { usage?: Usage; iteration?: number }): AgentContext<D> {
    return new AgentContext({ ...this.#state, ...progress });
  }

  #append(type: string, data: unknown): AgentContext<D> {
    return new AgentContext({
      ...this.#state,
      log: this.#state.log.append(type, data, this.#state.now().toISOString()),
    });
  }
}
