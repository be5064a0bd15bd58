import { MalformedResponseError } from "../../errors/provider-error.js";
import type { ProviderMetadata } from "../../session/messages.js";
import type { FinishReason, ModelResponse, ModelStreamPart, ModelUsage, ResponsePart } from "../model.js";
import { geminiErrorOf, geminiStreamError } from "./gemini-errors.js";
import { GeminiBuiltinTools } from "./gemini-native-tools.js";

const PROVIDER = "gemini";

function malformed(message: string): MalformedResponseError {
  return new MalformedResponseError({ provider: PROVIDER, message });
}

type Block =
  | { kind: "text" | "reasoning"; text: string; signature?: string; open: boolean }
  | { kind: "tool-call"; id: string; name: string; argsText: string; signature?: string; callId?: string }
  /** A code execution part (`executableCode`, `codeExecutionResult`). */
  | { kind: "builtin"; part: ResponsePart; open: false; signature?: undefined };

/** Gemini's `finishReason` as a normalized finish reason (`STOP` with function calls is `tool-calls`). */
export function mapFinishReason(reason: unknown, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "STOP":
      return hasToolCalls ? "tool-calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "content-filter";
    case "MALFORMED_FUNCTION_CALL":
    case "UNEXPECTED_TOOL_CALL":
    case "TOO_MANY_TOOL_CALLS":
      return "error";
    default:
      return hasToolCalls ? "tool-calls" : "other";
  }
}

/**
 * Normalized usage from `usageMetadata`. `candidatesTokenCount` leaves out thinking, so
 * `outputTokens` adds `thoughtsTokenCount` back (as other providers count output).
 */
export function convertUsage(value: unknown): ModelUsage {
  if (typeof value !== "object" || value === null) return {};
  const metadata = value as Record<string, unknown>;
  const count = (key: string): number | undefined => {
    const field = metadata[key];
    return typeof field === "number" && Number.isFinite(field) ? field : undefined;
  };
  const prompt = count("promptTokenCount");
  const candidates = count("candidatesTokenCount");
  const thoughts = count("thoughtsTokenCount");
  const total = count("totalTokenCount");
  const cached = count("cachedContentTokenCount");
  const usage: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {};
  if (prompt !== undefined) usage.inputTokens = prompt;
  if (candidates !== undefined || thoughts !== undefined) usage.outputTokens = (candidates ?? 0) + (thoughts ?? 0);
  if (total !== undefined) usage.totalTokens = total;
  if (cached !== undefined) usage.cachedInputTokens = cached;
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== "";

/**
 * Builds one answer from `GenerateContentResponse` objects: the single JSON answer, or each chunk
 * of a stream in turn (returning the deltas it adds). Consecutive text (or thought) parts join into
 * one part; a part with a `thoughtSignature` closes its run and keeps the signature in
 * `providerMetadata.gemini`. Function calls without an id get one from `generateId`.
 */
export class GeminiAssembly {
  readonly #blocks: Block[] = [];
  readonly #builtin = new GeminiBuiltinTools();
  #finishReason: unknown;
  #blockReason: unknown;
  #usage: ModelUsage = {};
  #modelId: string | undefined;
  #responseId: string | undefined;
  /** Whether the last chunk with candidates (or prompt feedback) said the answer is over. */
  complete = false;

  constructor(readonly generateId: () => string) {}

  addChunk(value: unknown): ModelStreamPart[] {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw malformed("a chunk is not an object");
    const chunk = value as Record<string, unknown>;
    const error = geminiErrorOf(chunk);
    if (error !== undefined) throw geminiStreamError(error);
    if (chunk.usageMetadata !== undefined) this.#usage = convertUsage(chunk.usageMetadata);
    if (nonEmptyString(chunk.modelVersion)) this.#modelId = chunk.modelVersion;
    if (nonEmptyString(chunk.responseId)) this.#responseId = chunk.responseId;
    const feedback = chunk.promptFeedback as { blockReason?: unknown } | undefined;
    if (typeof feedback === "object" && feedback !== null && nonEmptyString(feedback.blockReason)) {
      this.#blockReason = feedback.blockReason;
      this.complete = true;
    }
    const parts: ModelStreamPart[] = [];
    if (chunk.candidates === undefined) return parts;
    if (!Array.isArray(chunk.candidates)) throw malformed("candidates is not an array");
    const candidate = chunk.candidates[0] as Record<string, unknown> | undefined;
    if (candidate === undefined) return parts;
    if (typeof candidate !== "object" || candidate === null) throw malformed("a candidate is not an object");
    this.#builtin.addCandidate(candidate);
    const content = candidate.content as { parts?: unknown } | undefined;
    if (typeof content === "object" && content !== null && content.parts !== undefined) {
      if (!Array.isArray(content.parts)) throw malformed("content.parts is not an array");
      for (const part of content.parts) this.#addPart(part, parts);
    }
    this.complete = nonEmptyString(candidate.finishReason);
    if (this.complete) this.#finishReason = candidate.finishReason;
    return parts;
  }

  #addPart(value: unknown, out: ModelStreamPart[]): void {
    if (typeof value !== "object" || value === null) throw malformed("a part is not an object");
    const part = value as Record<string, unknown>;
    const signature = nonEmptyString(part.thoughtSignature) ? part.thoughtSignature : undefined;
    const last = this.#blocks.at(-1);
    if (typeof part.functionCall === "object" && part.functionCall !== null) {
      const call = part.functionCall as Record<string, unknown>;
      if (!nonEmptyString(call.name)) throw malformed("a functionCall has no name");
      const args = call.args === undefined || call.args === null ? {} : call.args;
      if (typeof args !== "object" || Array.isArray(args)) throw malformed("functionCall.args is not an object");
      if (last !== undefined && last.kind !== "tool-call" && last.kind !== "builtin") last.open = false;
      const block: Block = { kind: "tool-call", id: "", name: call.name, argsText: JSON.stringify(args) };
      if (nonEmptyString(call.id)) block.callId = call.id;
      block.id = block.callId ?? this.generateId();
      if (signature !== undefined) block.signature = signature;
      this.#blocks.push(block);
      out.push(
        { type: "tool-call-start", toolCallId: block.id, toolName: block.name },
        { type: "tool-call-delta", toolCallId: block.id, argsTextDelta: block.argsText },
        { type: "tool-call-end", toolCallId: block.id },
      );
      return;
    }
    const builtin = this.#builtin.codePart(part, this.#responseId);
    if (builtin !== undefined) {
      if (last !== undefined && last.kind !== "tool-call") last.open = false;
      this.#blocks.push({ kind: "builtin", part: builtin, open: false });
      return;
    }
    const text = typeof part.text === "string" ? part.text : signature !== undefined ? "" : undefined;
    if (text === undefined) return; // inline data, code execution and parts added later are not surfaced
    const kind = part.thought === true ? "reasoning" : "text";
    let block = last;
    if (block === undefined || block.kind !== kind || !block.open) {
      block = { kind, text: "", open: true };
      this.#blocks.push(block);
    }
    block.text += text;
    if (text !== "") out.push({ type: kind === "text" ? "text-delta" : "reasoning-delta", text });
    if (signature !== undefined) {
      block.signature = signature;
      block.open = false;
    }
  }

  /** The answer received so far, as a normalized response. */
  response(): ModelResponse {
    const content: ResponsePart[] = this.#builtin.parts(this.#responseId);
    let hasToolCalls = false;
    for (const block of this.#blocks) {
      const gemini: Record<string, unknown> = {};
      if (block.signature !== undefined) gemini.thoughtSignature = block.signature;
      switch (block.kind) {
        case "text":
        case "reasoning":
          if (block.text === "" && block.signature === undefined) break;
          content.push({ type: block.kind, text: block.text, ...metadata(gemini) });
          break;
        case "tool-call":
          hasToolCalls = true;
          if (block.callId !== undefined) gemini.callId = block.callId;
          content.push({
            type: "tool-call",
            toolCallId: block.id,
            toolName: block.name,
            argsText: block.argsText,
            ...metadata(gemini),
          });
          break;
        case "builtin":
          content.push(block.part);
          break;
        default: {
          const unexpected: never = block;
          throw new Error(`unknown block: ${JSON.stringify(unexpected)}`);
        }
      }
    }
    const finishReason =
      this.#finishReason === undefined && this.#blockReason !== undefined
        ? "content-filter"
        : mapFinishReason(this.#finishReason, hasToolCalls);
    const response: { -readonly [K in keyof ModelResponse]: ModelResponse[K] } = {
      content,
      usage: this.#usage,
      finishReason,
    };
    if (this.#modelId !== undefined) response.modelId = this.#modelId;
    if (this.#responseId !== undefined) {
      response.responseId = this.#responseId;
      response.providerMetadata = { gemini: { responseId: this.#responseId } };
    }
    return response;
  }
}

function metadata(gemini: Record<string, unknown>): { providerMetadata?: ProviderMetadata } {
  return Object.keys(gemini).length > 0 ? { providerMetadata: { gemini } } : {};
}

/** The normalized response from a (non-streaming) `generateContent` JSON answer. */
export function parseGeminiResponse(body: unknown, generateId: () => string): ModelResponse {
  const assembly = new GeminiAssembly(generateId);
  assembly.addChunk(body);
  const record = body as Record<string, unknown>;
  if (!Array.isArray(record.candidates) && record.promptFeedback === undefined) {
    throw malformed("the answer has neither candidates nor promptFeedback");
  }
  return assembly.response();
}
