import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { RunQueuePort } from "../agent/run-queue-port.js";
import type { RunTelemetry } from "../agent/run-telemetry-port.js";
import type { Pricing } from "../cost/price-response.js";
import type { RunCost } from "../cost/recorded-cost.js";
import type { JsonSchema, Model, ModelRequest, ModelResponse, ModelSettings } from "../models/model.js";
import type { RetryPolicy } from "../models/retry.js";
import type { SessionEvent } from "../session/events.js";
import type { Message, MessageInput, UserContentPart } from "../session/messages.js";
import type { RunContext } from "../session/run-context.js";
import type { Usage } from "../session/usage.js";
import type { AgentTool } from "../tools/agent-tools.js";
import type { CompactionPolicy } from "./compaction-policy.js";

/** How structured output is obtained: a final tool, the provider's JSON mode, or instructions. */
export type OutputMode = "tool" | "native" | "prompted" | "auto";

/** Limits on one run; exceeding one ends the run with `UsageLimitExceededError`. */
export interface UsageLimits {
  requests?: number;
  toolCalls?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /**
   * USD the run may spend, its sub-agents included (see `RunResult.cost`). Checked after each
   * response and before each request. A run whose cost is not fully known — a response of a model
   * without a price, see `AgentOptions.pricing` — stops with `CostUnknownError` rather than spend
   * past a limit it cannot check.
   */
  costUsd?: number;
}

/** A tool call as hooks and approval handlers see it. */
export interface ToolCallInfo {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** Set for a nested call (made by a code-mode program or another dispatching tool): the call that made it. */
  readonly parentToolCallId?: string;
}

/** What `preToolUse` decides. */
export type PreToolUseDecision =
  | { readonly type: "allow" }
  | { readonly type: "deny"; readonly reason: string }
  | { readonly type: "modify"; readonly args: unknown };

/** What an approval handler decides. */
export type ApprovalDecision =
  | { readonly type: "approve" }
  | { readonly type: "reject"; readonly reason?: string }
  | { readonly type: "edit"; readonly args: unknown };

export type ApprovalHandler<D extends object> = (
  call: ToolCallInfo,
  context: RunContext<D>,
) => ApprovalDecision | Promise<ApprovalDecision>;

type Awaitable<T> = T | Promise<T>;

/** Points where an application can watch or steer a run. Each is optional. */
export interface AgentHooks<D extends object> {
  sessionStart?(run: { runId: string; context: RunContext<D> }): Awaitable<void>;
  /** May return a replacement request. */
  preRequest?(request: ModelRequest, context: RunContext<D>): Awaitable<ModelRequest | undefined | void>;
  /** May return a replacement response. */
  postResponse?(response: ModelResponse, context: RunContext<D>): Awaitable<ModelResponse | undefined | void>;
  /** Allow, deny (the model is told the reason) or modify the arguments of a tool call. */
  preToolUse?(call: ToolCallInfo, context: RunContext<D>): Awaitable<PreToolUseDecision | undefined | void>;
  /**
   * Runs after a call that executed (with its parsed arguments) and may replace the result the model
   * sees. Calls refused before running (unknown tool, invalid arguments, denied, rejected) skip it.
   */
  postToolUse?(
    outcome: ToolCallInfo & { readonly result: unknown; readonly isError: boolean },
    context: RunContext<D>,
  ): Awaitable<{ readonly result: unknown } | undefined | void>;
  sessionEnd?(outcome: { runId: string; error?: unknown; output?: unknown }): Awaitable<void>;
}

/** Instructions, fixed or computed from the run context on every model request. */
export type Instructions<D extends object> = string | ((context: RunContext<D>) => Awaitable<string>);

/**
 * How a session run holds its session (see `agent.run` with a `sessionId`): a lease in the store,
 * renewed every `ttlMs / 3` while the run goes on, tools included.
 *
 * @example
 * new Agent({ model, lease: { ttlMs: 10_000 } }); // another process may resume 10 s after a crash
 */
export interface LeaseSettings {
  /**
   * How long the lease outlives the last heartbeat, in ms (default 30,000; 30 … 86,400,000). After
   * a crash, the session is `"interrupted"` and resumable once this has passed; a run whose event
   * loop stalls longer than this may be taken over (and then fails with `LeaseLostError`).
   */
  readonly ttlMs?: number;
}

export interface AgentOptions<D extends object, O> {
  /** A model instance, or "provider:model" ("test" for the built-in offline model). */
  model: Model | string;
  /** Models tried in order when the previous one fails with a provider error (never for other errors). */
  fallback?: readonly (Model | string)[];
  /** Retries of retryable provider errors for each model (default: `withRetry` defaults); `false` turns them off. */
  retry?: RetryPolicy | false;
  instructions?: Instructions<D>;
  /** Function tools, and provider tools (`openaiTools.webSearch()`, ...) the provider runs itself. */
  tools?: readonly AgentTool<D>[];
  /** A Standard Schema (zod 4, …) for structured output; without it the output is the final text. */
  outputType?: StandardSchemaV1<unknown, O> | JsonSchema;
  outputMode?: OutputMode;
  /** How often invalid structured output is sent back to the model before the run fails (default 2). */
  outputRetries?: number;
  /** How deep sub-agents may nest below this agent's runs (default 3). */
  maxDepth?: number;
  /** Model requests per run (default 10). */
  maxIterations?: number;
  parallelToolCalls?: boolean;
  hooks?: AgentHooks<D>;
  approvalHandler?: ApprovalHandler<D>;
  settings?: ModelSettings;
  usageLimits?: UsageLimits;
  name?: string;
  /** The clock event times come from (tests pin it). */
  now?: () => Date;
  /** The lease of session runs (default ttl 30 s); a run's own `lease` option overrides it. */
  lease?: LeaseSettings;
  /**
   * Deps paths whose values are secret: a key (`"apiKey"`) or a dotted path into plain objects
   * (`"db.password"`). Their values in a run's deps are registered as secrets for redaction (see
   * `registerSecret`), and updates writing them are recorded with a placeholder; tools still read
   * the real values. Secret deps are never restored from the log: pass them in `deps` on every run
   * and resume.
   */
  secret?: readonly string[];
  /**
   * Where `agent.submit` sends runs for a fleet of workers (`runQueue` from `nous/fleet`); also
   * where `agent.result` and `agent.follow` read them back.
   */
  queue?: RunQueuePort;
  /**
   * Where each run's trace goes when it ends (`openTelemetry()` from `nous/telemetry`): spans
   * derived from the run's part of the session log. Sub-agent runs are part of their parent's trace.
   */
  telemetry?: RunTelemetry;
  /**
   * How each model response is priced for its `model_response` event's `cost` (see `Pricing`):
   * by default from the bundled `@pydantic/genai-prices` data; your own rates for the models a
   * table or function knows; `false` records no cost.
   */
  pricing?: Pricing;
  /**
   * How the agent keeps its requests within the model's context window: `summarizeHistory(…)`
   * (a recorded model call summarizes older turns past a token budget) or `dropToolResults(…)`
   * (older tool results give way to a placeholder). Recorded as `compaction` events; the log keeps
   * every original event. Default: none (a long session ends in `ContextTooLongError`).
   */
  compaction?: CompactionPolicy;
}

/** Options of one run. `deps` is required when the deps type has required keys. */
export type RunOptions<D extends object> = {
  signal?: AbortSignal;
  messageHistory?: readonly MessageInput[];
  usageLimits?: UsageLimits;
  runId?: string;
} & ({} extends D ? { deps?: D } : { deps: D });

/** The prompt of a run: text or multimodal user content. */
export type Prompt = string | readonly UserContentPart[];

/** What a run produced. `deps` equals `projectDeps(log, initialDeps)`; `messages` equals `projectMessages(log)`. */
export interface RunResult<O = string, D extends object = Record<string, unknown>> {
  readonly runId: string;
  readonly output: O;
  readonly deps: D;
  readonly messages: readonly Message[];
  readonly log: readonly SessionEvent[];
  readonly usage: Usage;
  /** What the run cost in USD, its sub-agents included; `partial` when some responses had no known price. */
  readonly cost: RunCost;
}
