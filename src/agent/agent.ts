import type { AgentIdentity } from "../errors/agent-mismatch-error.js";
import { DepthLimitExceededError, SessionStateError } from "../errors/run-errors.js";
import { DefinitionError } from "../errors/user-errors.js";
import { withFallback } from "../models/fallback.js";
import type { Model } from "../models/model.js";
import { resolveModel } from "../models/registry.js";
import { withRetry } from "../models/retry.js";
import { parseSecretPaths, type SecretPaths } from "../redaction/secret-paths.js";
import type { AgentStream, AgentStreamEvent } from "../runner/agent-stream-event.js";
import type { Emit } from "../runner/event-channel.js";
import { createSeam } from "../runner/nested-call.js";
import { OUTPUT_TOOL_NAME, type OutputSpec, resolveOutputSpec } from "../runner/output-spec.js";
import type { ResumePoint } from "../runner/resume-analysis.js";
import { type RunStart, runLoop } from "../runner/run-loop.js";
import { type InDoubtResolver, type RunPersistence, RunState } from "../runner/run-state.js";
import type { AgentOptions, LeaseSettings, Prompt, RunOptions, RunResult } from "../runner/types.js";
import { AgentContext } from "../session/agent-context.js";
import type { SessionEvent } from "../session/events.js";
import { resolveBlobs } from "../store/blob-refs.js";
import type { SessionStore } from "../store/session-store.js";
import { type AgentAsToolOptions, agentAsTool, type DefaultSubAgentInput } from "../sub-agents/sub-agent.js";
import { functionToolsOf, providerToolsOf } from "../tools/agent-tools.js";
import type { InferSchema, SchemaInput } from "../tools/schema.js";
import { type AnyTool, indexTools, type Tool } from "../tools/tool.js";
import { agentChange, agentDefinitionHash } from "./agent-identity.js";
import { agentStream } from "./agent-stream.js";
import { queuedResult, queueOf } from "./queued-runs.js";
import type { ParentRun, ResumeArguments, RunArguments } from "./run-options.js";
import type { QueuedReadOptions, RunQueuePort, Submission, SubmitOptions } from "./run-queue-port.js";
import type { RunTelemetryScope } from "./run-telemetry-port.js";
import { RunLease } from "./session-lease.js";
import {
  abandonInDoubt,
  assertNoUnfinishedRun,
  defaultSessionStore,
  resumableRun,
  sessionContext,
  storePersistence,
} from "./session-runs.js";
import { settleTornCall, tornCall } from "./torn-tail.js";

/** Every option a run can take, as the run's internals read them. */
interface AnyRunOptions<D extends object> {
  deps?: D;
  signal?: AbortSignal;
  messageHistory?: RunOptions<D>["messageHistory"];
  usageLimits?: RunOptions<D>["usageLimits"];
  runId?: string;
  sessionId?: string;
  store?: SessionStore;
  resolveInDoubt?: InDoubtResolver<D>;
  parent?: ParentRun;
  lease?: LeaseSettings;
  allowAgentChange?: true | { readonly reason: string };
}

/** A run ready to start, and the lease it holds (a session run) until it ends. */
interface PreparedRun<D extends object, O> {
  readonly state: RunState<D, O>;
  readonly start: RunStart;
  readonly lease: RunLease | undefined;
  /** Index in the state's log of the run's first event (those before it were stored already). */
  readonly from: number;
  /** The run's telemetry (the agent option `telemetry`), begun when the run was called; none for a sub-agent. */
  readonly telemetry: RunTelemetryScope | undefined;
}

export type { ParentRun, ResumeArguments, ResumeOptions, RunArguments, SessionRunOptions } from "./run-options.js";

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
  readonly #secretPaths: SecretPaths;
  #identity: (AgentIdentity & { readonly hash: string }) | undefined;

  constructor(options: AgentOptions<D, O>) {
    this.#options = options;
    this.name = options.name;
    const retry = options.retry;
    const prepare = (model: Model | string) => {
      const resolved = resolveModel(model);
      return retry === false ? resolved : withRetry(resolved, retry);
    };
    const chain = [options.model, ...(options.fallback ?? [])].map(prepare);
    this.model = chain.length === 1 ? (chain[0] as Model) : withFallback(chain);
    this.#tools = indexTools(functionToolsOf(options.tools ?? []), options.outputType ? [OUTPUT_TOOL_NAME] : []);
    this.#output = resolveOutputSpec(options.outputType, options.outputMode ?? "auto", this.model);
    this.#secretPaths = parseSecretPaths(options.secret);
    for (const key of ["maxIterations", "outputRetries"] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
        throw new DefinitionError({ message: `Agent option ${key} must be a whole number >= 0, got ${value}` });
      }
    }
  }

  /**
   * Which agent this is, as a session's `run_started` records it: the name and a hash of the
   * definition (instructions, tools, output type: see `agentDefinitionHash`). Continuing or
   * resuming a session is refused with `AgentMismatchError` unless the session names this agent.
   *
   * @example
   * agent.identity; // { name: "support", hash: "9c1f…" }
   */
  get identity(): AgentIdentity & { readonly hash: string } {
    this.#identity ??= {
      ...(this.name === undefined ? {} : { name: this.name }),
      hash: agentDefinitionHash({
        instructions: this.#options.instructions,
        tools: this.#tools.values(),
        providerTools: providerToolsOf(this.#options.tools),
        outputSchema: this.#output?.schema.jsonSchema,
      }),
    };
    return this.#identity;
  }

  /** The run queue `submit` uses (the agent option `queue`), if any. */
  get queue(): RunQueuePort | undefined {
    return this.#options.queue;
  }

  /** The names of this agent's tools. */
  get toolNames(): readonly string[] {
    return [...this.#tools.keys()];
  }

  /**
   * This agent's tool of that name, if any (e.g. to check edited approval arguments).
   *
   * @example
   * await decideApproval(store, approval, { type: "edit", args }, { agent }); // uses agent.toolNamed
   */
  toolNamed(name: string): AnyTool<D> | undefined {
    return this.#tools.get(name);
  }

  /** This agent as a tool another agent's model can call (a sub-agent); see `agentAsTool`. */
  asTool<PD extends object = Record<string, unknown>, S extends SchemaInput = DefaultSubAgentInput>(
    options: AgentAsToolOptions<PD, D, S>,
  ): Tool<InferSchema<S>, O | string, PD> {
    return agentAsTool(this, options);
  }

  /**
   * Runs the agent to its final answer. Rejects with a typed error (carrying the log) on failure.
   * With a `sessionId`, the run holds the session's lease from before it reads the log until it
   * ends; while another run's lease is live it is refused with `SessionConflictError`.
   */
  async run(prompt: Prompt, ...[options]: RunArguments<D>): Promise<RunResult<O, D>> {
    const start: RunStart = { type: "prompt", prompt, history: options?.messageHistory ?? [] };
    const telemetry = this.#telemetry(options);
    return runHeld(await this.#prepare(start, options as AnyRunOptions<D> | undefined, undefined, telemetry));
  }

  /**
   * Continues a session's interrupted run from its log: after a crash or a store failure
   * (`StoreError`), or once its pending approvals are decided. Calls with a recorded result never
   * run again; a started call without one re-runs only if its tool is idempotent (see `resolveInDoubt`).
   * Refused with `SessionConflictError`, changing nothing, while the session's lease is live (its run
   * is still going in some process); after a crash, once the lease expired (status `"interrupted"`).
   *
   * @example
   * const result = await agent.resume("u42", { store, deps: { db } });
   */
  async resume(sessionId: string, ...[options]: ResumeArguments<D>): Promise<RunResult<O, D>> {
    const all = { ...(options as AnyRunOptions<D> | undefined), sessionId };
    const telemetry = this.#telemetry(all);
    return runHeld(await this.#prepare({ type: "resume", pending: undefined }, all, undefined, telemetry));
  }

  /**
   * Runs the agent as a stream: the live tail of its session log. Yields every event the run
   * appends to the log (`kind: "event"`, as the log has it) in seq order, with the deltas of the
   * model's answers between them (`kind: "delta"`). Ends after `run_completed`, or after
   * `run_paused` when the run waits for approval; throws the run's error after `run_failed`.
   * `result` settles as `run` would (rejecting with `ApprovalPendingError` on a pause). The run
   * starts when the stream is first read and waits for the reader after each step and tool result.
   *
   * @example
   * const stream = agent.stream("Hi");
   * for await (const event of stream) {
   *   if (event.kind === "delta" && event.type === "text-delta") process.stdout.write(event.text);
   * }
   * const { output } = await stream.result;
   */
  stream(prompt: Prompt, ...[options]: RunArguments<D>): AgentStream<O, D> {
    const start: RunStart = { type: "prompt", prompt, history: options?.messageHistory ?? [] };
    // Begun here, in the caller's context, not where the stream is first read.
    const telemetry = this.#telemetry(options);
    return agentStream(async (emit) =>
      runHeld(await this.#prepare(start, options as AnyRunOptions<D> | undefined, emit, telemetry)),
    );
  }

  /**
   * Resumes a session's interrupted run (see `resume`) as a stream (see `stream`): after the
   * approvals a `run_paused` waits for are decided, the rest of the run streams as `stream` would.
   *
   * @example
   * await decideApproval(store, approval, { type: "approve" });
   * for await (const event of agent.resumeStream("u42", { store })) if (event.kind === "event") console.log(event.type);
   */
  resumeStream(sessionId: string, ...[options]: ResumeArguments<D>): AgentStream<O, D> {
    const all = { ...(options as AnyRunOptions<D> | undefined), sessionId };
    const telemetry = this.#telemetry(all);
    return agentStream(async (emit) =>
      runHeld(await this.#prepare({ type: "resume", pending: undefined }, all, emit, telemetry)),
    );
  }

  /**
   * Queues a run for a fleet of workers (`nous worker`, or `runWorker` from `nous/fleet`) and returns
   * at once. The queue's payload is JSON and holds no secrets: `deps` are state only, and a worker
   * adds its live deps. Needs the agent's `queue`; refused with `QueueFullError` past its `maxDepth`
   * and `TenantBudgetExceededError` once the tenant's budget is spent.
   *
   * @example
   * const { sessionId } = await agent.submit("Where is my order?", { sessionId: "u42", tenant: "acme" });
   * const { output } = await agent.result(sessionId);
   */
  async submit(prompt: Prompt, options?: SubmitOptions<D>): Promise<Submission> {
    const agent = { name: this.name, secret: this.#options.secret ?? [] };
    const { queue, ...rest } = options ?? {};
    return queueOf(queue ?? this.#options.queue, "submit").submit(agent, prompt, rest);
  }

  /**
   * Waits, from any process, for the latest run submitted to the session to end, and returns what
   * `run` would have: rebuilt from the session log. Throws `QueuedRunFailedError` for a failed run,
   * `ToolInDoubtError` when a worker's resume found a call in doubt that needs a decision (see
   * `nous sessions resume`), `ApprovalPendingError` when the run waits for approvals.
   *
   * @example
   * const result = await agent.result("u42", { signal: AbortSignal.timeout(60_000) });
   */
  async result(sessionId: string, options?: QueuedReadOptions): Promise<RunResult<O, D>> {
    const queue = queueOf(options?.queue ?? this.#options.queue, "result");
    const outcome = await queue.wait(sessionId, options);
    return queuedResult<O, D>(sessionId, outcome, await resolveBlobs(queue.store, await queue.store.read(sessionId)));
  }

  /**
   * The session's events as workers commit them, from `fromSeq` (default 1) until the latest
   * submitted run ends or stops for a decision. Any process may follow; a reader that reconnects
   * passes the last seq it saw plus one and misses nothing.
   *
   * @example
   * for await (const event of agent.follow("u42")) console.log(event.seq, event.type);
   */
  follow(sessionId: string, options?: QueuedReadOptions & { readonly fromSeq?: number }): AsyncIterable<SessionEvent> {
    return queueOf(options?.queue ?? this.#options.queue, "follow").follow(sessionId, options);
  }

  /** The run's telemetry scope, begun in the caller's context; none for a sub-agent (its parent's trace holds it). */
  #telemetry(options: { parent?: ParentRun } | undefined): RunTelemetryScope | undefined {
    if (options?.parent !== undefined) return undefined;
    return this.#options.telemetry?.runStarting();
  }

  /**
   * Everything a run needs before its loop starts: for a session run the lease (taken before the
   * log is read, so what it reads is what no other run will change) and the context from the
   * store; then the state.
   */
  async #prepare(
    start: RunStart,
    options: AnyRunOptions<D> | undefined,
    emit: Emit<AgentStreamEvent> | undefined,
    telemetry: RunTelemetryScope | undefined,
  ): Promise<PreparedRun<D, O>> {
    const agent = this.#options;
    const depth = options?.parent === undefined ? 0 : options.parent.seam.depth + 1;
    const maxDepth = agent.maxDepth ?? 3;
    if (depth > maxDepth) throw new DepthLimitExceededError(maxDepth);
    const deps = (options?.deps ?? {}) as D;
    const sessionId = options?.sessionId;
    const secretPaths = this.#secretPaths;
    let context = AgentContext.create<D>({ deps, name: agent.name, now: agent.now, secretPaths });
    let persistence: RunPersistence | undefined;
    let runId = options?.runId ?? crypto.randomUUID();
    let resumePoint: ResumePoint | undefined;
    let storedCount = 0;
    let store = options?.store ?? (options?.parent?.seam.store as SessionStore | undefined);
    let lease: RunLease | undefined;
    if (sessionId !== undefined) {
      store ??= await defaultSessionStore();
      lease = await RunLease.acquire(store, sessionId, options?.lease ?? agent.lease, options?.signal);
      try {
        // Blob references resolved: the run's log holds each part's data, as it was recorded.
        const events = await resolveBlobs(store, await store.read(sessionId));
        // Before anything is written: a session goes on with the agent that ran it, or says it changed.
        const changed = agentChange(sessionId, events, this.identity, options?.allowAgentChange);
        let inDoubt: ReadonlySet<string> = new Set();
        if (start.type === "prompt") inDoubt = assertNoUnfinishedRun(events, sessionId);
        else resumePoint = resumableRun(events, sessionId);
        context = sessionContext(events, deps, { name: agent.name, now: agent.now, secretPaths });
        if (changed !== undefined) context = context.logEvent("agent_changed", changed);
        if (resumePoint !== undefined) {
          const torn = tornCall(events, resumePoint);
          if (torn !== undefined) ({ context, point: resumePoint } = settleTornCall(context, resumePoint, torn));
          runId = resumePoint.runId;
          start = { type: "resume", pending: resumePoint.pending };
        }
        context = abandonInDoubt(context, inDoubt, sessionId, (name) => this.#tools.get(name)?.idempotent === true);
        persistence = storePersistence(store, sessionId, events.at(-1)?.seq ?? 0, lease);
        storedCount = events.length;
      } catch (error) {
        await lease.release();
        throw error;
      }
    } else if (start.type === "resume") {
      throw new SessionStateError({ message: "resume needs a sessionId" });
    }
    const state = new RunState<D, O>(
      {
        runId,
        agentHash: this.identity.hash,
        model: this.model,
        tools: this.#tools,
        output: this.#output,
        options: agent,
        hooks: agent.hooks ?? {},
        limits: { ...agent.usageLimits, ...options?.usageLimits },
        maxIterations: agent.maxIterations ?? 10,
        outputRetries: agent.outputRetries ?? 2,
        emit,
        signal: lease?.signal ?? options?.signal,
        persistence,
        sessionId,
        resolveInDoubt: options?.resolveInDoubt,
        depth,
        store,
        parent:
          options?.parent === undefined
            ? undefined
            : {
                sessionId: options.parent.sessionId,
                runId: options.parent.runId,
                toolCallId: options.parent.toolCallId,
              },
      },
      context,
    );
    state.markCommitted(storedCount);
    state.attachSeam(createSeam(state));
    if (resumePoint !== undefined) {
      state.resume = resumePoint.resume;
      state.iteration = resumePoint.iteration;
      state.usage = resumePoint.usage;
      state.cost = resumePoint.cost;
    }
    return { state, start, lease, from: storedCount, telemetry };
  }
}

/** Runs the loop, then gives the session's lease up and reports the run to its telemetry, however it ended. */
async function runHeld<D extends object, O>(prepared: PreparedRun<D, O>): Promise<RunResult<O, D>> {
  try {
    return await runLoop(prepared.state, prepared.start);
  } finally {
    await prepared.lease?.release();
    const { state, from, telemetry } = prepared;
    if (telemetry !== undefined) {
      const { sessionId } = state.config;
      const store = state.config.store as SessionStore | undefined;
      const events = state.context.log.events;
      await Promise.resolve({ sessionId, store, events, from }).then(telemetry.runEnded.bind(telemetry)).catch(ignore);
    }
  }
}

function ignore(): void {}
