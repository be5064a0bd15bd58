import type { Message, ProviderMetadata } from "../session/messages.js";
import type { ProviderTool, Source } from "./provider-tool.js";

/** The version of this contract. A model implementation names the version it was written against. */
export const MODEL_SPECIFICATION_VERSION = "nous-model-v1";

/** A JSON Schema document (draft 2020-12 subset as providers accept it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A tool as the model is told about it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: JsonSchema;
}

/** Ask the provider to constrain the answer to a JSON schema (structured output, `native` mode). */
export interface NativeOutputSpec {
  readonly type: "json";
  readonly name: string;
  readonly description?: string;
  readonly schema: JsonSchema;
}

export type ToolChoice = "auto" | "required" | "none" | { readonly type: "tool"; readonly toolName: string };

/**
 * Prompt caching, vendor-neutral; each provider maps it to its own fields (README "Prompt caching").
 * Leaving it out gives each provider's default: OpenAI's `prompt_cache_key` is sent (caching there
 * costs nothing), Anthropic's `cache_control` breakpoints are not (cache writes cost more than plain
 * input: opt in with `enabled: true`), Gemini caches implicitly. Recorded with each request, so
 * `rebuildRequest` reproduces the cache fields.
 *
 * @example
 * const agent = new Agent({ model: "anthropic:claude-sonnet-4-5", settings: { cache: { enabled: true } } });
 * const quiet = new Agent({ model: "openai:gpt-5-mini", settings: { cache: { enabled: false } } });
 */
export interface PromptCacheSettings {
  /** `true` sends cache hints on every provider, `false` sends no cache field at all. */
  readonly enabled?: boolean;
  /** OpenAI `prompt_cache_key`; default `nous-` + a hash of the instructions and tool definitions. */
  readonly key?: string;
  /** `"long"`: Anthropic `ttl: "1h"`, OpenAI `prompt_cache_retention: "24h"`. Default: each provider's short one. */
  readonly retention?: "short" | "long";
  /** Gemini: the name of a cache you created (`cachedContents/…`), holding the instructions and tools. */
  readonly cachedContent?: string;
}

/** Sampling and provider settings. Vendor-only options go in `providerOptions`, keyed by provider name. */
export interface ModelSettings {
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxOutputTokens?: number;
  readonly stopSequences?: readonly string[];
  readonly seed?: number;
  /** Prompt caching: on by default where it costs nothing (see `PromptCacheSettings`). */
  readonly cache?: PromptCacheSettings;
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One request to a model: everything it needs, vendor-neutral. */
export interface ModelRequest {
  /** The system prompt (the agent's instructions), kept apart from the message history. */
  readonly instructions?: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Tools the provider runs itself (a hosted web search, code execution), sent beside `tools`. */
  readonly providerTools?: readonly ProviderTool[];
  readonly toolChoice?: ToolChoice;
  readonly output?: NativeOutputSpec;
  /** When structured output uses a tool: the tool whose call is the final answer (one of `tools`). */
  readonly outputToolName?: string;
  readonly settings: ModelSettings;
  readonly signal?: AbortSignal;
  /**
   * Called by wrappers (`withRetry`, `withFallback`) for each retry or fallback; the runner records
   * them. A returned promise is awaited before the next attempt is sent (the runner's resolves once
   * the record is committed).
   */
  readonly onNotice?: (notice: ModelCallNotice) => void | PromiseLike<void>;
}

/** Token counts a provider reported. Fields it did not report are left out. */
export interface ModelUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
}

/** Why the model stopped. */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/** A part of a model's answer. Tool-call arguments are the raw JSON text the model produced. */
export type ResponsePart =
  | { readonly type: "text"; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | { readonly type: "reasoning"; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | {
      readonly type: "tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly argsText: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  /** A call of a provider tool the provider ran itself (never run by the runner). */
  | {
      readonly type: "provider-tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  /** What a provider tool returned, with the sources it found. */
  | {
      readonly type: "provider-tool-result";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly result: unknown;
      readonly isError: boolean;
      readonly sources?: readonly Source[];
    }
  /** A source the answer's text cites (a URL citation, a file citation). */
  | { readonly type: "source"; readonly source: Source };

/** The parts of an answer its assistant message carries; provider tool parts and sources are recorded apart. */
export type MessageResponsePart = Extract<ResponsePart, { readonly type: "text" | "reasoning" | "tool-call" }>;

/** Whether a part goes into the assistant message (text, reasoning, a tool call). */
export function isMessagePart(part: ResponsePart): part is MessageResponsePart {
  return part.type === "text" || part.type === "reasoning" || part.type === "tool-call";
}

/** A complete model answer. */
export interface ModelResponse {
  readonly content: readonly ResponsePart[];
  readonly usage: ModelUsage;
  readonly finishReason: FinishReason;
  /** The model that answered, as the provider named it. */
  readonly modelId?: string;
  /** The provider's id of this response (e.g. `chatcmpl-…`, `msg_…`, `resp_…`). */
  readonly responseId?: string;
  /** The provider's id of the HTTP request, from its response headers. */
  readonly requestId?: string;
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * A part of a streamed answer. Deltas come as they arrive; a stream that completes always ends with
 * exactly one `finish` part carrying the assembled response. A stream that ends without `finish` was
 * cut off: the consumer treats it as an error and never executes a half-received tool call.
 */
export type ModelStreamPart =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | { readonly type: "tool-call-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-call-delta"; readonly toolCallId: string; readonly argsTextDelta: string }
  | { readonly type: "tool-call-end"; readonly toolCallId: string }
  | { readonly type: "finish"; readonly response: ModelResponse }
  /** Discard every delta received so far in this stream (a fallback model takes over after a failure). */
  | { readonly type: "stream-reset"; readonly reason: string };

/**
 * How a model's requests reach its provider, recorded with each request so the exact body can be
 * rebuilt from the log (`rebuildRequest`). `options` are the provider-level settings that shape the
 * body (never credentials, headers or URLs).
 */
export interface WireTarget {
  /** The wire format: "openai-chat", "openai-responses", "anthropic", "gemini". */
  readonly api: string;
  readonly modelId: string;
  readonly options?: Readonly<Record<string, unknown>>;
}

/** What a model wrapper reports while it serves a request: a retry, or a move to the next model. */
export type ModelCallNotice =
  | {
      readonly type: "retry";
      readonly model: string;
      readonly attempt: number;
      readonly error: unknown;
      readonly retryAfterMs?: number;
      readonly delayMs: number;
    }
  | {
      readonly type: "fallback";
      readonly from: string;
      readonly to: string;
      readonly wire?: WireTarget;
      readonly error: unknown;
    };

/** What a model can do beyond text and tools; the runner picks structured-output modes from it. */
export interface ModelCapabilities {
  /** The provider can constrain output to a JSON schema (`native` structured output). */
  readonly nativeOutput?: boolean;
  readonly tools?: boolean;
}

/**
 * The contract every model implements: providers, test models, adapters. The `do` prefix marks
 * methods the runner calls; applications call `agent.run` instead.
 *
 * @example
 * const model: Model = {
 *   specificationVersion: "nous-model-v1", provider: "echo", modelId: "echo",
 *   async doGenerate(request) { return { content: [{ type: "text", text: "hi" }], usage: {}, finishReason: "stop" }; },
 *   async *doStream(request) { yield { type: "finish", response: await this.doGenerate(request) }; },
 * };
 */
export interface Model {
  readonly specificationVersion: typeof MODEL_SPECIFICATION_VERSION;
  /** The provider's name, as in "provider:model". */
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities?: ModelCapabilities;
  /** The wire format its requests use (HTTP providers); wrappers pass their first model's on. */
  readonly wire?: WireTarget;
  doGenerate(request: ModelRequest): Promise<ModelResponse>;
  doStream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** "provider:model", the name used in logs. */
export function modelName(model: Model): string {
  return `${model.provider}:${model.modelId}`;
}
