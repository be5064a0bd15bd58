import { MalformedResponseError, type ProviderError } from "../../errors/provider-error.js";
import type { FinishReason, ModelResponse, ModelStreamPart, ModelUsage, ResponsePart } from "../model.js";
import { annotationSources, hostedToolParts, messageAnnotations } from "./openai-native-tools.js";
import { classifyErrorCode } from "./shared/http.js";
import { sourceParts } from "./shared/native-tools.js";
import {
  array,
  type Check,
  checkWire,
  type Infer,
  nullish,
  number,
  object,
  parseWire,
  string,
} from "./shared/wire-check.js";

const errorSchema = nullish(object({ code: nullish(string), message: nullish(string) }));

const usageSchema = nullish(
  object({
    input_tokens: nullish(number),
    output_tokens: nullish(number),
    total_tokens: nullish(number),
    input_tokens_details: nullish(object({ cached_tokens: nullish(number) })),
    output_tokens_details: nullish(object({ reasoning_tokens: nullish(number) })),
  }),
);

const messageItemSchema = object({
  content: array(object({ type: string, text: nullish(string), refusal: nullish(string) })),
});

const functionCallItemSchema = object({
  id: nullish(string),
  call_id: string,
  name: string,
  arguments: nullish(string),
});

const reasoningItemSchema = object({
  id: nullish(string),
  summary: nullish(array(object({ text: string }))),
  encrypted_content: nullish(string),
});

/** The output items Nous reads, by `type`; every other kind of item is skipped. */
type OutputItem =
  | ({ type: "message" } & Infer<typeof messageItemSchema>)
  | ({ type: "function_call" } & Infer<typeof functionCallItemSchema>)
  | ({ type: "reasoning" } & Infer<typeof reasoningItemSchema>);

const knownItemSchemas = new Map<string, Check<unknown>>([
  ["message", messageItemSchema],
  ["function_call", functionCallItemSchema],
  ["reasoning", reasoningItemSchema],
]);

/** Any output item: an object with a string `type` (a known kind's shape is checked by `asOutputItem`). */
const itemSchema = object({ type: string });

const responseSchema = object({
  id: nullish(string),
  model: nullish(string),
  status: nullish(string),
  error: errorSchema,
  incomplete_details: nullish(object({ reason: nullish(string) })),
  output: nullish(array(itemSchema)),
  usage: usageSchema,
});

type WireResponse = Infer<typeof responseSchema>;

const eventSchema = object({
  type: string,
  delta: nullish(string),
  output_index: nullish(number),
  summary_index: nullish(number),
  item: nullish(itemSchema),
  response: nullish(responseSchema),
  code: nullish(string),
  message: nullish(string),
});

/** The item as one Nous reads, undefined for item kinds it skips; a known kind of the wrong shape is malformed. */
function asOutputItem(provider: string, item: Infer<typeof itemSchema> | null | undefined): OutputItem | undefined {
  if (item === null || item === undefined) return undefined;
  const check = knownItemSchemas.get(item.type);
  if (check === undefined) return undefined;
  return checkWire(provider, check, item, `malformed ${item.type} item`) as OutputItem;
}

function toUsage(usage: WireResponse["usage"]): ModelUsage {
  if (usage === null || usage === undefined) return {};
  const result: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {};
  if (typeof usage.input_tokens === "number") result.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") result.outputTokens = usage.output_tokens;
  if (typeof usage.total_tokens === "number") result.totalTokens = usage.total_tokens;
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === "number") result.cachedInputTokens = cached;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") result.reasoningTokens = reasoning;
  return result;
}

function toFinishReason(response: WireResponse, hasToolCalls: boolean): FinishReason {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "content-filter" : "other";
  }
  if (hasToolCalls) return "tool-calls";
  return response.status === "completed" || response.status === undefined || response.status === null
    ? "stop"
    : "other";
}

function failure(provider: string, error: WireResponse["error"], fallback: string): ProviderError {
  return classifyErrorCode({ provider, code: error?.code ?? undefined, message: error?.message ?? fallback });
}

/** How the request was sent: `stored` when with `store: true` (OpenAI then keeps its output items). */
export interface ResponsesReadOptions {
  readonly stored: boolean;
}

/**
 * A reasoning item as a reasoning part. Its metadata is what a later request needs to send it back:
 * the item id, the encrypted content when it was asked for, and `stored` when OpenAI kept the item.
 */
function reasoningPart(
  provider: string,
  item: OutputItem & { type: "reasoning" },
  text: string,
  options: ResponsesReadOptions,
): ResponsePart {
  const metadata: Record<string, unknown> = {};
  if (item.id) metadata.itemId = item.id;
  if (item.encrypted_content) metadata.encryptedContent = item.encrypted_content;
  if (item.id && options.stored) metadata.stored = true;
  return Object.keys(metadata).length === 0
    ? { type: "reasoning", text }
    : { type: "reasoning", text, providerMetadata: { [provider]: metadata } };
}

/** A non-streamed Responses API answer as a model response; a failed response is a typed error. */
export function parseResponsesAnswer(
  provider: string,
  body: unknown,
  options: ResponsesReadOptions = { stored: false },
): ModelResponse {
  const response = parseWire(provider, responseSchema, body, "response");
  if (response.status === "failed") throw failure(provider, response.error, "the response failed");
  const content: ResponsePart[] = [];
  for (const wireItem of response.output ?? []) {
    const hosted = hostedToolParts(wireItem);
    if (hosted !== undefined) content.push(...hosted);
    const item = asOutputItem(provider, wireItem);
    if (item === undefined) continue;
    switch (item.type) {
      case "reasoning":
        content.push(
          reasoningPart(provider, item, (item.summary ?? []).map((part) => part.text).join("\n\n"), options),
        );
        break;
      case "message": {
        const text = item.content.map((part) => part.text ?? part.refusal ?? "").join("");
        if (text !== "") content.push({ type: "text", text });
        content.push(...sourceParts(annotationSources(messageAnnotations(item))));
        break;
      }
      case "function_call":
        content.push({
          type: "tool-call",
          toolCallId: item.call_id,
          toolName: item.name,
          argsText: item.arguments ?? "",
          ...(item.id ? { providerMetadata: { [provider]: { itemId: item.id } } } : {}),
        });
        break;
      default: {
        const unknownItem: never = item;
        throw new Error(`unknown output item ${JSON.stringify(unknownItem)}`);
      }
    }
  }
  const hasToolCalls = content.some((part) => part.type === "tool-call");
  return {
    content,
    usage: toUsage(response.usage),
    finishReason: toFinishReason(response, hasToolCalls),
    ...(response.model ? { modelId: response.model } : {}),
    ...(response.id ? { responseId: response.id } : {}),
  };
}

type Slot =
  | { kind: "text"; text: string; annotations?: unknown[] }
  | { kind: "reasoning"; text: string; item: OutputItem & { type: "reasoning" } }
  | { kind: "hosted"; parts: ResponsePart[] }
  | { kind: "call"; id: string; name: string; args: string; itemId?: string };

/**
 * Assembles a Responses API stream from its semantic events, slot by `output_index`. The stream is
 * complete only at `response.completed` or `response.incomplete`; `response.failed` and `error`
 * events are typed errors.
 */
export class ResponsesStreamAssembler {
  readonly #provider: string;
  readonly #options: ResponsesReadOptions;
  readonly #slots = new Map<number, Slot>();
  #final: ModelResponse | undefined;

  constructor(provider: string, options: ResponsesReadOptions = { stored: false }) {
    this.#provider = provider;
    this.#options = options;
  }

  /** The final response once the terminal event has arrived. */
  get final(): ModelResponse | undefined {
    return this.#final;
  }

  *accept(data: string): Generator<ModelStreamPart> {
    const event = parseWire(this.#provider, eventSchema, data, "stream event");
    const index = event.output_index ?? 0;
    switch (event.type) {
      case "response.output_item.added":
        yield* this.#open(index, event.item);
        return;
      case "response.output_item.done": {
        const slot = this.#slots.get(index);
        const item = asOutputItem(this.#provider, event.item);
        if (slot?.kind === "reasoning" && item?.type === "reasoning") slot.item = item;
        if (slot?.kind === "text" && item?.type === "message") slot.annotations = messageAnnotations(item);
        const hosted = hostedToolParts(event.item);
        if (hosted !== undefined) this.#slots.set(index, { kind: "hosted", parts: hosted });
        return;
      }
      case "response.output_text.annotation.added": {
        const slot = this.#slots.get(index);
        const annotation = (event as { annotation?: unknown }).annotation;
        if (slot?.kind === "text" && annotation !== undefined)
          slot.annotations = [...(slot.annotations ?? []), annotation];
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        yield* this.#text(index, "text", event.delta ?? "");
        return;
      case "response.reasoning_summary_part.added":
        if ((event.summary_index ?? 0) > 0) yield* this.#text(index, "reasoning", "\n\n");
        return;
      case "response.reasoning_summary_text.delta":
        yield* this.#text(index, "reasoning", event.delta ?? "");
        return;
      case "response.function_call_arguments.delta": {
        const slot = this.#slots.get(index);
        if (slot?.kind !== "call") throw this.#malformed(`arguments for output ${index}, which is not a function call`);
        slot.args += event.delta ?? "";
        if (event.delta) yield { type: "tool-call-delta", toolCallId: slot.id, argsTextDelta: event.delta };
        return;
      }
      case "response.completed":
      case "response.incomplete":
        if (event.response === null || event.response === undefined)
          throw this.#malformed(`${event.type} without response`);
        yield* this.#finish(event.response);
        return;
      case "response.failed":
        throw failure(this.#provider, event.response?.error, "the response failed");
      case "error":
        throw classifyErrorCode({
          provider: this.#provider,
          code: event.code ?? undefined,
          message: event.message ?? "stream error",
        });
      default:
        return; // lifecycle and `.done` events repeat what the deltas said
    }
  }

  *#open(index: number, wireItem: Infer<typeof itemSchema> | null | undefined): Generator<ModelStreamPart> {
    const item = asOutputItem(this.#provider, wireItem);
    if (item === undefined || this.#slots.has(index)) return;
    switch (item.type) {
      case "message":
        this.#slots.set(index, { kind: "text", text: "" });
        return;
      case "reasoning":
        this.#slots.set(index, { kind: "reasoning", text: "", item });
        return;
      case "function_call": {
        const duplicate = [...this.#slots.values()].some((slot) => slot.kind === "call" && slot.id === item.call_id);
        if (duplicate) throw this.#malformed(`function call id ${item.call_id} repeated`);
        const slot: Slot = { kind: "call", id: item.call_id, name: item.name, args: "" };
        if (item.id) slot.itemId = item.id;
        this.#slots.set(index, slot);
        yield { type: "tool-call-start", toolCallId: item.call_id, toolName: item.name };
        return;
      }
      default: {
        const unknownItem: never = item;
        throw new Error(`unknown output item ${JSON.stringify(unknownItem)}`);
      }
    }
  }

  *#text(index: number, kind: "text" | "reasoning", delta: string): Generator<ModelStreamPart> {
    let slot = this.#slots.get(index);
    if (slot === undefined) {
      slot = kind === "text" ? { kind, text: "" } : { kind, text: "", item: { type: "reasoning" } };
      this.#slots.set(index, slot);
    }
    if (slot.kind !== kind) throw this.#malformed(`${kind} delta for output ${index}, which is a ${slot.kind}`);
    if (delta === "") return;
    slot.text += delta;
    yield kind === "text" ? { type: "text-delta", text: delta } : { type: "reasoning-delta", text: delta };
  }

  *#finish(response: WireResponse): Generator<ModelStreamPart> {
    const content: ResponsePart[] = [];
    const slots = [...this.#slots.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot);
    for (const slot of slots) {
      if (slot.kind === "text" && slot.text !== "") content.push({ type: "text", text: slot.text });
      if (slot.kind === "text") content.push(...sourceParts(annotationSources(slot.annotations ?? [])));
      if (slot.kind === "hosted") content.push(...slot.parts);
      if (slot.kind === "reasoning") content.push(reasoningPart(this.#provider, slot.item, slot.text, this.#options));
      if (slot.kind === "call") {
        yield { type: "tool-call-end", toolCallId: slot.id };
        content.push({
          type: "tool-call",
          toolCallId: slot.id,
          toolName: slot.name,
          argsText: slot.args,
          ...(slot.itemId ? { providerMetadata: { [this.#provider]: { itemId: slot.itemId } } } : {}),
        });
      }
    }
    this.#final = {
      content,
      usage: toUsage(response.usage),
      finishReason: toFinishReason(
        response,
        slots.some((slot) => slot.kind === "call"),
      ),
      ...(response.model ? { modelId: response.model } : {}),
      ...(response.id ? { responseId: response.id } : {}),
    };
    yield { type: "finish", response: this.#final };
  }

  #malformed(message: string): MalformedResponseError {
    return new MalformedResponseError({ provider: this.#provider, message });
  }
}
