import { NousError } from "../../errors/nous-error.js";
import { NetworkError, ProviderServerError, StreamTruncatedError } from "../../errors/provider-error.js";
import type { Message } from "../../session/messages.js";
import {
  type FinishReason,
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ModelUsage,
  type ResponsePart,
} from "../model.js";
import { classifyHttpError } from "../providers/shared/http.js";
import { aiSdkToolOutput } from "./ai-sdk-tool-output.js";
import type {
  AiSdkCallOptions,
  AiSdkContent,
  AiSdkFinishReason,
  AiSdkLanguageModel,
  AiSdkMessage,
  AiSdkUsage,
} from "./ai-sdk-types.js";

export type { AiSdkLanguageModel } from "./ai-sdk-types.js";

/**
 * Uses any Vercel AI SDK language model (specification v2 or v3, for example from
 * `@ai-sdk/anthropic` or a community provider) as a Nous model. Nous does not depend on the SDK:
 * the object is read structurally. Errors the SDK throws with an HTTP status become Nous's typed
 * provider errors; a stream that ends without its `finish` part is a `StreamTruncatedError`.
 *
 * @example
 * import { createMistral } from "@ai-sdk/mistral";
 * const agent = new Agent({ model: fromAiSdk(createMistral()("mistral-large-latest")) });
 */
export function fromAiSdk(languageModel: AiSdkLanguageModel): Model {
  const provider = languageModel.provider;
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider,
    modelId: languageModel.modelId,
    capabilities: { tools: true, nativeOutput: true },
    async doGenerate(request: ModelRequest): Promise<ModelResponse> {
      let result: Awaited<ReturnType<AiSdkLanguageModel["doGenerate"]>>;
      try {
        result = await languageModel.doGenerate(toCallOptions(request, languageModel.specificationVersion));
      } catch (error) {
        throw toNousError(provider, error, request.signal);
      }
      return {
        content: result.content.flatMap(toResponsePart),
        usage: toUsage(result.usage),
        finishReason: toFinishReason(result.finishReason),
        ...(result.response?.modelId ? { modelId: result.response.modelId } : {}),
      };
    },
    async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      let reader: ReadableStreamDefaultReader<unknown>;
      try {
        reader = (
          await languageModel.doStream(toCallOptions(request, languageModel.specificationVersion))
        ).stream.getReader();
      } catch (error) {
        throw toNousError(provider, error, request.signal);
      }
      const assembler = new AiSdkStreamAssembler();
      try {
        while (true) {
          let next: ReadableStreamReadResult<unknown>;
          try {
            next = await reader.read();
          } catch (error) {
            throw toNousError(provider, error, request.signal);
          }
          if (next.done) break;
          const part = next.value as { type?: unknown; error?: unknown };
          if (part.type === "error") throw toNousError(provider, part.error, request.signal);
          yield* assembler.accept(part);
          if (assembler.finished) return;
        }
        if (request.signal?.aborted) throw request.signal.reason;
        throw new StreamTruncatedError({ provider, message: "the stream ended without a finish part" });
      } finally {
        await reader.cancel().catch(() => {});
      }
    },
  };
}

function toCallOptions(request: ModelRequest, version: "v2" | "v3"): AiSdkCallOptions {
  const { settings } = request;
  const prompt: AiSdkMessage[] = [];
  if (request.instructions) prompt.push({ role: "system", content: request.instructions });
  for (const message of request.messages) prompt.push(toPromptMessage(message, version));
  const options: AiSdkCallOptions = { prompt };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
  }
  const choice = request.toolChoice;
  if (choice !== undefined) options.toolChoice = typeof choice === "string" ? { type: choice } : choice;
  if (request.output !== undefined) {
    const { schema, name, description } = request.output;
    options.responseFormat = { type: "json", schema, name, ...(description === undefined ? {} : { description }) };
  }
  if (settings.maxOutputTokens !== undefined) options.maxOutputTokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) options.temperature = settings.temperature;
  if (settings.topP !== undefined) options.topP = settings.topP;
  if (settings.stopSequences !== undefined) options.stopSequences = [...settings.stopSequences];
  if (settings.seed !== undefined) options.seed = settings.seed;
  if (settings.providerOptions !== undefined) options.providerOptions = { ...settings.providerOptions };
  if (request.signal !== undefined) options.abortSignal = request.signal;
  return options;
}

function toPromptMessage(message: Message, version: "v2" | "v3"): AiSdkMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      if (typeof message.content === "string")
        return { role: "user", content: [{ type: "text", text: message.content }] };
      return {
        role: "user",
        content: message.content.map((part) =>
          part.type === "text"
            ? { type: "text", text: part.text }
            : {
                type: "file",
                data: part.data,
                mediaType: part.mediaType,
                ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}),
              },
        ),
      };
    case "assistant":
      return {
        role: "assistant",
        content: message.content.map((part) =>
          part.type === "tool-call"
            ? { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.args }
            : { type: part.type, text: part.text },
        ),
      };
    case "tool": {
      const output = aiSdkToolOutput(message, version);
      return {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: message.toolCallId, toolName: message.toolName, output }],
      };
    }
    default: {
      const unknownMessage: never = message;
      throw new Error(`unknown message ${JSON.stringify(unknownMessage)}`);
    }
  }
}

function toResponsePart(content: AiSdkContent): ResponsePart[] {
  switch (content.type) {
    case "text":
    case "reasoning":
      return [{ type: content.type, text: content.text }];
    case "tool-call":
      return [
        { type: "tool-call", toolCallId: content.toolCallId, toolName: content.toolName, argsText: content.input },
      ];
    default:
      return [];
  }
}

/** v2 numbers or v3 nested totals, to Nous usage. */
export function toUsage(usage: AiSdkUsage | undefined): ModelUsage {
  const result: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {};
  const input = usage?.inputTokens;
  const output = usage?.outputTokens;
  const inputTotal = typeof input === "number" ? input : input?.total;
  const outputTotal = typeof output === "number" ? output : output?.total;
  if (inputTotal !== undefined) result.inputTokens = inputTotal;
  if (outputTotal !== undefined) result.outputTokens = outputTotal;
  const total =
    usage?.totalTokens ??
    (inputTotal !== undefined && outputTotal !== undefined ? inputTotal + outputTotal : undefined);
  if (total !== undefined) result.totalTokens = total;
  const cached = typeof input === "object" ? input.cacheRead : usage?.cachedInputTokens;
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (typeof input === "object" && input.cacheWrite !== undefined) result.cacheWriteTokens = input.cacheWrite;
  const reasoning = typeof output === "object" ? output.reasoning : usage?.reasoningTokens;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

function toFinishReason(reason: AiSdkFinishReason | undefined): FinishReason {
  const unified = typeof reason === "string" ? reason : reason?.unified;
  switch (unified) {
    case "stop":
    case "length":
    case "tool-calls":
    case "content-filter":
    case "error":
      return unified;
    default:
      return "other";
  }
}

/** SDK errors with an HTTP status become typed provider errors; the caller's abort stays its reason. */
function toNousError(provider: string, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  if (NousError.isInstance(error)) return error;
  const fields = (typeof error === "object" && error !== null ? error : {}) as {
    statusCode?: unknown;
    responseHeaders?: unknown;
    responseBody?: unknown;
    name?: unknown;
    message?: unknown;
  };
  if (typeof fields.statusCode === "number") {
    const headers = new Headers((fields.responseHeaders ?? {}) as Record<string, string>);
    const bodyText = typeof fields.responseBody === "string" ? fields.responseBody : String(fields.message ?? "");
    return classifyHttpError({ provider, status: fields.statusCode, headers, bodyText });
  }
  const message = typeof fields.message === "string" ? fields.message : String(error);
  if (fields.name === "AI_APICallError") return new NetworkError({ provider, message, cause: error });
  if (typeof fields.name === "string" && fields.name.startsWith("AI_")) {
    return new ProviderServerError({ provider, message, cause: error });
  }
  return error;
}

/** Turns SDK stream parts into Nous stream parts and assembles the final response. */
class AiSdkStreamAssembler {
  finished = false;
  #text = "";
  #reasoning = "";
  readonly #started = new Map<string, string>();
  readonly #calls: ResponsePart[] = [];

  *accept(part: { type?: unknown } & Record<string, unknown>): Generator<ModelStreamPart> {
    const text = (key: string) => (typeof part[key] === "string" ? (part[key] as string) : "");
    switch (part.type) {
      case "text-delta":
        this.#text += text("delta");
        if (text("delta") !== "") yield { type: "text-delta", text: text("delta") };
        return;
      case "reasoning-delta":
        this.#reasoning += text("delta");
        if (text("delta") !== "") yield { type: "reasoning-delta", text: text("delta") };
        return;
      case "tool-input-start":
        this.#started.set(text("id"), "");
        yield { type: "tool-call-start", toolCallId: text("id"), toolName: text("toolName") };
        return;
      case "tool-input-delta": {
        const sofar = this.#started.get(text("id"));
        if (sofar === undefined || text("delta") === "") return;
        this.#started.set(text("id"), sofar + text("delta"));
        yield { type: "tool-call-delta", toolCallId: text("id"), argsTextDelta: text("delta") };
        return;
      }
      case "tool-call": {
        const id = text("toolCallId");
        const input = text("input");
        const sofar = this.#started.get(id);
        if (sofar === undefined) yield { type: "tool-call-start", toolCallId: id, toolName: text("toolName") };
        if (sofar === undefined || sofar === "") {
          if (input !== "") yield { type: "tool-call-delta", toolCallId: id, argsTextDelta: input };
        }
        const argsText = sofar === undefined || sofar === "" ? input : sofar;
        yield { type: "tool-call-end", toolCallId: id };
        this.#calls.push({ type: "tool-call", toolCallId: id, toolName: text("toolName"), argsText });
        return;
      }
      case "finish": {
        const content: ResponsePart[] = [];
        if (this.#reasoning !== "") content.push({ type: "reasoning", text: this.#reasoning });
        if (this.#text !== "") content.push({ type: "text", text: this.#text });
        content.push(...this.#calls);
        this.finished = true;
        const usage = toUsage(part.usage as AiSdkUsage | undefined);
        yield {
          type: "finish",
          response: {
            content,
            usage,
            finishReason: toFinishReason(part.finishReason as AiSdkFinishReason | undefined),
          },
        };
        return;
      }
      default:
        return;
    }
  }
}
