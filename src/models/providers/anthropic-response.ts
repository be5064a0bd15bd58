import { MalformedResponseError } from "../../errors/provider-error.js";
import type { FinishReason, ModelResponse, ModelUsage, ResponsePart } from "../model.js";
import {
  blockCitations,
  citationSources,
  isServerToolResult,
  serverToolCall,
  serverToolResult,
} from "./anthropic-native-tools.js";
import { sourceParts } from "./shared/native-tools.js";

const PROVIDER = "anthropic";

/** One content block of an Anthropic message as it is being (or has been) received. */
export type AnthropicBlock =
  | { kind: "text"; text: string; closed: boolean; citations: unknown[] }
  | { kind: "thinking"; text: string; signature?: string; closed: boolean }
  | { kind: "redacted-thinking"; data: string; closed: boolean }
  | { kind: "tool-use"; id: string; name: string; argsText: string; initialInput: string; closed: boolean }
  /** A call of a tool the API runs itself (`server_tool_use`): a provider tool call, never one for the runner. */
  | { kind: "server-tool-use"; id: string; name: string; argsText: string; initialInput: string; closed: boolean }
  /** A server tool's result (`web_search_tool_result`, `bash_code_execution_tool_result`, ...), whole at its start. */
  | { kind: "server-tool-result"; block: Record<string, unknown>; closed: boolean }
  /** Blocks this adapter does not surface: MCP connector blocks (`mcp_tool_use`) and block types added later. */
  | { kind: "other"; closed: boolean };

/** Anthropic's `usage` object, with the fields it may carry. */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** Keeps the numeric usage fields of a wire object, later values overriding earlier ones. */
export function mergeUsage(into: AnthropicUsage, value: unknown): AnthropicUsage {
  if (typeof value !== "object" || value === null) return into;
  const next = { ...into };
  for (const key of [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
  ] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === "number" && Number.isFinite(field)) next[key] = field;
  }
  return next;
}

/**
 * Normalized usage. Anthropic's `input_tokens` leaves out cached tokens, so `inputTokens` adds the
 * cache reads and writes back in (the whole prompt, as other providers count it).
 */
export function convertUsage(usage: AnthropicUsage): ModelUsage {
  const result: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {};
  const cacheRead = usage.cache_read_input_tokens;
  const cacheWrite = usage.cache_creation_input_tokens;
  if (usage.input_tokens !== undefined) {
    result.inputTokens = usage.input_tokens + (cacheRead ?? 0) + (cacheWrite ?? 0);
  }
  if (usage.output_tokens !== undefined) result.outputTokens = usage.output_tokens;
  if (result.inputTokens !== undefined && result.outputTokens !== undefined) {
    result.totalTokens = result.inputTokens + result.outputTokens;
  }
  if (cacheRead !== undefined) result.cachedInputTokens = cacheRead;
  if (cacheWrite !== undefined) result.cacheWriteTokens = cacheWrite;
  return result;
}

/** Anthropic's `stop_reason` as a normalized finish reason. */
export function mapStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The normalized response from received blocks. A tool call is only ever returned complete: one
 * cut off by `max_tokens` is left out, and any other unfinished or unparsable one is a malformed answer.
 */
export function assembleResponse(fields: {
  blocks: readonly AnthropicBlock[];
  stopReason: unknown;
  usage: AnthropicUsage;
  modelId: string | undefined;
  messageId: string | undefined;
  outputToolName: string | undefined;
}): ModelResponse {
  let finishReason = mapStopReason(fields.stopReason);
  const content: ResponsePart[] = [];
  let toolCalls = 0;
  const serverToolNames = new Map<string, string>();
  for (const block of fields.blocks) {
    switch (block.kind) {
      case "text":
        if (block.text !== "") content.push({ type: "text", text: block.text });
        content.push(...sourceParts(citationSources(block.citations)));
        break;
      case "server-tool-use":
        serverToolNames.set(block.id, block.name);
        content.push(serverToolCall(block.id, block.name, block.argsText === "" ? block.initialInput : block.argsText));
        break;
      case "server-tool-result":
        content.push(serverToolResult(block.block, serverToolNames.get(String(block.block.tool_use_id))));
        break;
      case "thinking":
        content.push(
          block.signature === undefined
            ? { type: "reasoning", text: block.text }
            : { type: "reasoning", text: block.text, providerMetadata: { anthropic: { signature: block.signature } } },
        );
        break;
      case "redacted-thinking":
        content.push({ type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: block.data } } });
        break;
      case "tool-use": {
        const argsText = block.argsText === "" ? block.initialInput : block.argsText;
        if (!block.closed || !isValidJson(argsText)) {
          if (finishReason === "length") break;
          throw new MalformedResponseError({
            provider: PROVIDER,
            message: `tool call ${block.id} (${block.name}) arrived with incomplete input`,
          });
        }
        if (block.name === fields.outputToolName) {
          content.push({ type: "text", text: argsText });
        } else {
          toolCalls += 1;
          content.push({ type: "tool-call", toolCallId: block.id, toolName: block.name, argsText });
        }
        break;
      }
      case "other":
        break;
      default: {
        const unexpected: never = block;
        throw new Error(`unknown block: ${JSON.stringify(unexpected)}`);
      }
    }
  }
  // The emulated structured-output call is the final answer, not a tool call to run.
  if (finishReason === "tool-calls" && toolCalls === 0 && fields.outputToolName !== undefined) finishReason = "stop";
  const response: { -readonly [K in keyof ModelResponse]: ModelResponse[K] } = {
    content,
    usage: convertUsage(fields.usage),
    finishReason,
  };
  if (fields.modelId !== undefined) response.modelId = fields.modelId;
  if (fields.messageId !== undefined) {
    response.responseId = fields.messageId;
    response.providerMetadata = { anthropic: { messageId: fields.messageId } };
  }
  return response;
}

function stringField(value: Record<string, unknown>, key: string): string | undefined {
  const field = value[key];
  return typeof field === "string" ? field : undefined;
}

/** A received content block (from a JSON answer, or a stream's `content_block_start`). */
export function blockFromWire(value: unknown, closed: boolean): AnthropicBlock {
  if (typeof value !== "object" || value === null) {
    throw new MalformedResponseError({ provider: PROVIDER, message: "a content block is not an object" });
  }
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return { kind: "text", text: stringField(block, "text") ?? "", closed, citations: blockCitations(block) };
    case "server_tool_use": {
      const input = block.input;
      return {
        kind: "server-tool-use",
        id: stringField(block, "id") ?? "",
        name: stringField(block, "name") ?? "server_tool",
        argsText: "",
        initialInput: typeof input === "object" && input !== null ? JSON.stringify(input) : "{}",
        closed,
      };
    }
    case "thinking": {
      const signature = stringField(block, "signature");
      const text = stringField(block, "thinking") ?? "";
      return signature === undefined || signature === ""
        ? { kind: "thinking", text, closed }
        : { kind: "thinking", text, signature, closed };
    }
    case "redacted_thinking":
      return { kind: "redacted-thinking", data: stringField(block, "data") ?? "", closed };
    case "tool_use": {
      const id = stringField(block, "id");
      const name = stringField(block, "name");
      if (id === undefined || id === "" || name === undefined || name === "") {
        throw new MalformedResponseError({ provider: PROVIDER, message: "a tool_use block lacks its id or name" });
      }
      const input = block.input;
      const initialInput =
        typeof input === "object" && input !== null && !Array.isArray(input) ? JSON.stringify(input) : "{}";
      return { kind: "tool-use", id, name, argsText: "", initialInput, closed };
    }
    default:
      return isServerToolResult(block) ? { kind: "server-tool-result", block, closed } : { kind: "other", closed };
  }
}

/** The normalized response from a (non-streaming) Messages API JSON answer. */
export function parseAnthropicResponse(body: unknown, outputToolName: string | undefined): ModelResponse {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { content?: unknown }).content)) {
    throw new MalformedResponseError({ provider: PROVIDER, message: "the answer has no content array" });
  }
  const message = body as Record<string, unknown> & { content: unknown[] };
  const blocks = message.content.map((block) => blockFromWire(block, true));
  return assembleResponse({
    blocks,
    stopReason: message.stop_reason,
    usage: mergeUsage({}, message.usage),
    modelId: stringField(message, "model"),
    messageId: stringField(message, "id"),
    outputToolName,
  });
}
