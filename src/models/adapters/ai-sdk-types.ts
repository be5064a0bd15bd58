/**
 * The minimal structural shape of a Vercel AI SDK language model (specification v2 and v3) that
 * `fromAiSdk` reads. Written here so Nous has no dependency on the `ai` packages; only the fields
 * used are declared, and both versions' usage and finish-reason shapes are accepted.
 */

export type AiSdkFinishReason = string | { readonly unified: string; readonly raw?: string };

/** v2 usage has numbers; v3 nests totals and details. */
export interface AiSdkUsage {
  readonly inputTokens?:
    | number
    | { readonly total?: number; readonly cacheRead?: number; readonly cacheWrite?: number };
  readonly outputTokens?: number | { readonly total?: number; readonly reasoning?: number };
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
}

export type AiSdkContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "file" | "source" | "tool-result" | "tool-approval-request" };

export type AiSdkStreamPart =
  | { readonly type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; readonly id: string }
  | { readonly type: "text-delta" | "reasoning-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-input-start"; readonly id: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-input-end"; readonly id: string }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "finish"; readonly usage: AiSdkUsage; readonly finishReason: AiSdkFinishReason }
  | { readonly type: "error"; readonly error: unknown }
  | {
      readonly type: "stream-start" | "response-metadata" | "raw" | "file" | "source" | "tool-result";
      readonly modelId?: string;
    };

export type AiSdkPromptPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "file"; data: string; mediaType: string; filename?: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | {
      type: "tool-result";
      toolCallId: string;
      toolName: string;
      output: AiSdkToolOutput;
    };

/** A tool result's output in the prompt; `content` carries images and files (v3 `image-data`/`file-data`, v2 `media`). */
export type AiSdkToolOutput =
  | { type: "text" | "error-text"; value: string }
  | { type: "json" | "error-json"; value: unknown }
  | {
      type: "content";
      value: (
        | { type: "text"; text: string }
        | { type: "media" | "image-data"; data: string; mediaType: string }
        | { type: "file-data"; data: string; mediaType: string; filename?: string }
      )[];
    };

export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user" | "assistant" | "tool"; content: AiSdkPromptPart[] };

/** The call options Nous fills in (a subset of the SDK's). */
export interface AiSdkCallOptions {
  prompt: AiSdkMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  seed?: number;
  responseFormat?: { type: "text" } | { type: "json"; schema?: unknown; name?: string; description?: string };
  tools?: { type: "function"; name: string; description?: string; inputSchema: unknown }[];
  toolChoice?: { type: "auto" | "none" | "required" } | { type: "tool"; toolName: string };
  abortSignal?: AbortSignal;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** Any object implementing the AI SDK language model specification v2 or v3. */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v2" | "v3";
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: AiSdkCallOptions): PromiseLike<{
    readonly content: readonly AiSdkContent[];
    readonly finishReason: AiSdkFinishReason;
    readonly usage: AiSdkUsage;
    readonly response?: { readonly modelId?: string };
  }>;
  doStream(options: AiSdkCallOptions): PromiseLike<{ readonly stream: ReadableStream<AiSdkStreamPart> }>;
}
