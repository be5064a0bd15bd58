import type { UpdateSource } from "../context/context-update.js";
import type { DepsOperation } from "../context/operations.js";
import { getLogger } from "../logging/logger.js";
import { redact } from "../redaction/redact.js";
import { redactOperation, registerSecretPaths, type SecretPaths } from "../redaction/secret-paths.js";
import { currentEventCheck } from "./event-check.js";
import { isSurfaceType, type SessionEvent } from "./events.js";
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
  /**
   * Deps paths whose values are secret (see `parseSecretPaths`): their values are registered as
   * secrets, and `set`/`merge`/`append` operations on them are recorded with a placeholder.
   */
  secretPaths?: SecretPaths;
}

/** Event times as ISO strings; the default clock formats each millisecond once. */
type Clock = () => string;

let lastMs = Number.NaN;
let lastIso = "";
const systemClock: Clock = () => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};

/** Runs the installed event check (a test hook; see `setEventCheck`) on the event just appended. */
function checkLast(log: SessionLog): void {
  const check = currentEventCheck();
  if (check !== undefined) check(log.at(-1) as SessionEvent);
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
  // The hot path makes one context per event: fields are set directly, no state record is spread.
  readonly #deps: D;
  readonly #log: SessionLog;
  readonly #name: string | undefined;
  readonly #usage: Usage;
  readonly #iteration: number;
  readonly #clock: Clock;
  readonly #secretPaths: SecretPaths;

  private constructor(
    deps: D,
    log: SessionLog,
    name: string | undefined,
    usage: Usage,
    iteration: number,
    clock: Clock,
    secretPaths: SecretPaths,
  ) {
    this.#deps = deps;
    this.#log = log;
    this.#name = name;
    this.#usage = usage;
    this.#iteration = iteration;
    this.#clock = clock;
    this.#secretPaths = secretPaths;
    Object.freeze(this);
  }

  static create<D extends object = Record<string, unknown>>(options: AgentContextOptions<D>): AgentContext<D> {
    const now = options.now;
    const secretPaths = options.secretPaths ?? [];
    if (secretPaths.length > 0) registerSecretPaths(options.deps, secretPaths);
    let context = new AgentContext<D>(
      options.deps,
      options.log ?? SessionLog.empty(),
      options.name,
      options.usage ?? emptyUsage,
      options.iteration ?? 0,
      now === undefined ? systemClock : () => now().toISOString(),
      secretPaths,
    );
    for (const message of options.messages ?? []) context = context.addMessage(message);
    return context;
  }

  get deps(): D {
    return this.#deps;
  }
  get log(): SessionLog {
    return this.#log;
  }
  /** The model's view: the projection of the log's surface events. */
  get messages(): readonly Message[] {
    return this.#log.messages;
  }
  get usage(): Usage {
    return this.#usage;
  }
  get iteration(): number {
    return this.#iteration;
  }
  get name(): string | undefined {
    return this.#name;
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
          ...(message.content === undefined ? {} : { content: message.content }),
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
    const paths = this.#secretPaths;
    // The deps keep the real values; the record gets placeholders for secret paths (and secrets anywhere).
    const recorded = paths.length === 0 ? operations : operations.map((operation) => redactOperation(operation, paths));
    const log = this.#log.append("context_update", redact({ ...source, operations: recorded }), this.#clock());
    checkLast(log);
    return new AgentContext(deps, log, this.#name, this.#usage, this.#iteration, this.#clock, paths);
  }

  /** A context with the given usage and iteration (the runner's bookkeeping). */
  withProgress(progress: { usage?: Usage; iteration?: number }): AgentContext<D> {
    return new AgentContext(
      this.#deps,
      this.#log,
      this.#name,
      progress.usage ?? this.#usage,
      progress.iteration ?? this.#iteration,
      this.#clock,
      this.#secretPaths,
    );
  }

  /** The one way into the log: what is appended is redacted first (see `redact`). */
  #append(type: string, data: unknown): AgentContext<D> {
    const log = this.#log.append(type, redact(data), this.#clock());
    checkLast(log);
    return new AgentContext(this.#deps, log, this.#name, this.#usage, this.#iteration, this.#clock, this.#secretPaths);
  }
}
