import { MalformedResponseError } from "../../errors/provider-error.js";
import type { FinishReason, ModelResponse, ModelStreamPart, ModelUsage, ResponsePart } from "../model.js";
import type { Source } from "../provider-tool.js";
import { chatAnnotationSources } from "./openai-native-tools.js";
import { classifyErrorCode } from "./shared/http.js";
import { sourceParts } from "./shared/native-tools.js";
import { array, type Infer, nullish, number, object, parseWire, present, string } from "./shared/wire-check.js";

const usageSchema = nullish(
  object({
    prompt_tokens: nullish(number),
    completion_tokens: nullish(number),
    total_tokens: nullish(number),
    prompt_tokens_details: nullish(object({ cached_tokens: nullish(number) })),
    completion_tokens_details: nullish(object({ reasoning_tokens: nullish(number) })),
  }),
);

const errorSchema = object({ message: nullish(string), code: nullish(present), type: nullish(string) });

const toolCallSchema = object({
  id: nullish(string),
  function: object({ name: string, arguments: nullish(string) }),
});

const completionSchema = object({
  id: nullish(string),
  model: nullish(string),
  choices: array(
    object({
      message: object({
        content: nullish(string),
        refusal: nullish(string),
        reasoning_content: nullish(string),
        reasoning: nullish(string),
        tool_calls: nullish(array(toolCallSchema)),
      }),
      finish_reason: nullish(string),
    }),
    { min: 1 },
  ),
  usage: usageSchema,
});

const chunkSchema = object({
  id: nullish(string),
  model: nullish(string),
  error: nullish(errorSchema),
  choices: nullish(
    array(
      object({
        index: nullish(number),
        delta: nullish(
          object({
            content: nullish(string),
            refusal: nullish(string),
            reasoning_content: nullish(string),
            reasoning: nullish(string),
            tool_calls: nullish(
              array(
                object({
                  index: nullish(number),
                  id: nullish(string),
                  function: nullish(object({ name: nullish(string), arguments: nullish(string) })),
                }),
              ),
            ),
          }),
        ),
        finish_reason: nullish(string),
      }),
    ),
  ),
  usage: usageSchema,
});

type ChatUsage = Infer<typeof usageSchema>;

function toUsage(usage: ChatUsage): ModelUsage {
  if (usage === null || usage === undefined) return {};
  const result: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {};
  if (typeof usage.prompt_tokens === "number") result.inputTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === "number") result.outputTokens = usage.completion_tokens;
  if (typeof usage.total_tokens === "number") result.totalTokens = usage.total_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") result.cachedInputTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") result.reasoningTokens = reasoning;
  return result;
}

function toFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "stop":
      return hasToolCalls ? "tool-calls" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    default:
      return hasToolCalls ? "tool-calls" : "other";
  }
}

/** A non-streamed Chat Completions answer as a model response. */
export function parseChatCompletion(provider: string, body: unknown): ModelResponse {
  const completion = parseWire(provider, completionSchema, body, "chat completion");
  const choice = completion.choices[0]!;
  const content: ResponsePart[] = [];
  const reasoning = choice.message.reasoning_content ?? choice.message.reasoning;
  if (reasoning) content.push({ type: "reasoning", text: reasoning });
  const text = (choice.message.content ?? "") + (choice.message.refusal ?? "");
  if (text !== "") content.push({ type: "text", text });
  content.push(...sourceParts(chatAnnotationSources((choice.message as { annotations?: unknown }).annotations)));
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    content.push({
      type: "tool-call",
      toolCallId: call.id || `call_${index}`,
      toolName: call.function.name,
      argsText: call.function.arguments ?? "",
    });
  });
  return {
    content,
    usage: toUsage(completion.usage),
    finishReason: toFinishReason(choice.finish_reason, (choice.message.tool_calls ?? []).length > 0),
    ...(completion.model ? { modelId: completion.model } : {}),
    ...(completion.id ? { responseId: completion.id } : {}),
  };
}

interface PendingToolCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Assembles a Chat Completions stream: text and reasoning deltas, tool calls fed by `index` in
 * fragments (possibly interleaved across calls), the usage chunk. `finish` is only produced by
 * `end()`, which the caller invokes on `[DONE]`.
 */
export class ChatStreamAssembler {
  readonly #provider: string;
  #text = "";
  #reasoning = "";
  readonly #calls = new Map<number, PendingToolCall>();
  #usage: ModelUsage = {};
  #finishReason: string | undefined;
  #modelId: string | undefined;
  #responseId: string | undefined;
  /** URL citations of a search model (`delta.annotations`). */
  readonly #sources: Source[] = [];

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** The parts one SSE data payload adds. */
  *accept(data: string): Generator<ModelStreamPart> {
    const chunk = parseWire(this.#provider, chunkSchema, data, "stream chunk");
    if (chunk.error) {
      const code = typeof chunk.error.code === "string" ? chunk.error.code : (chunk.error.type ?? undefined);
      throw classifyErrorCode({ provider: this.#provider, code, message: chunk.error.message ?? "stream error" });
    }
    if (chunk.model) this.#modelId = chunk.model;
    if (chunk.id) this.#responseId = chunk.id;
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      const reasoning = delta?.reasoning_content ?? delta?.reasoning;
      if (reasoning) {
        this.#reasoning += reasoning;
        yield { type: "reasoning-delta", text: reasoning };
      }
      const text = (delta?.content ?? "") + (delta?.refusal ?? "");
      if (text !== "") {
        this.#text += text;
        yield { type: "text-delta", text };
      }
      this.#sources.push(
        ...chatAnnotationSources((delta as { annotations?: unknown } | null | undefined)?.annotations),
      );
      for (const fragment of delta?.tool_calls ?? []) yield* this.#acceptToolCall(fragment);
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    }
  }

  *#acceptToolCall(fragment: {
    index?: number | null;
    id?: string | null;
    function?: { name?: string | null; arguments?: string | null } | null;
  }): Generator<ModelStreamPart> {
    const index = fragment.index ?? this.#indexOf(fragment.id) ?? this.#calls.size;
    let call = this.#calls.get(index);
    if (call === undefined) {
      const name = fragment.function?.name;
      if (!name) {
        throw new MalformedResponseError({ provider: this.#provider, message: `tool call ${index} has no name` });
      }
      call = { id: fragment.id || `call_${index}`, name, args: "" };
      if ([...this.#calls.values()].some((other) => other.id === call?.id)) call.id = `${call.id}_${index}`;
      this.#calls.set(index, call);
      yield { type: "tool-call-start", toolCallId: call.id, toolName: call.name };
    }
    const args = fragment.function?.arguments;
    if (args) {
      call.args += args;
      yield { type: "tool-call-delta", toolCallId: call.id, argsTextDelta: args };
    }
  }

  #indexOf(id: string | null | undefined): number | undefined {
    if (!id) return undefined;
    for (const [index, call] of this.#calls) if (call.id === id) return index;
    return undefined;
  }

  /** The closing parts: each tool call's end, then the one `finish`. */
  *end(): Generator<ModelStreamPart> {
    const content: ResponsePart[] = [];
    if (this.#reasoning !== "") content.push({ type: "reasoning", text: this.#reasoning });
    if (this.#text !== "") content.push({ type: "text", text: this.#text });
    content.push(...sourceParts(this.#sources));
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    for (const call of calls) {
      yield { type: "tool-call-end", toolCallId: call.id };
      content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, argsText: call.args });
    }
    const response: ModelResponse = {
      content,
      usage: this.#usage,
      finishReason: toFinishReason(this.#finishReason, calls.length > 0),
      ...(this.#modelId ? { modelId: this.#modelId } : {}),
      ...(this.#responseId ? { responseId: this.#responseId } : {}),
    };
    yield { type: "finish", response };
  }
}
