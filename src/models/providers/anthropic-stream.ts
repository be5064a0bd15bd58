import type { EventSourceMessage } from "eventsource-parser";
import { MalformedResponseError, StreamTruncatedError } from "../../errors/provider-error.js";
import type { ModelStreamPart } from "../model.js";
import { anthropicErrorOf, anthropicStreamError } from "./anthropic-errors.js";
import {
  type AnthropicBlock,
  type AnthropicUsage,
  assembleResponse,
  blockFromWire,
  mergeUsage,
} from "./anthropic-response.js";

const PROVIDER = "anthropic";

function malformed(message: string): MalformedResponseError {
  return new MalformedResponseError({ provider: PROVIDER, message });
}

/** What has been received of one streamed message. */
class MessageAssembly {
  readonly blocks = new Map<number, AnthropicBlock>();
  usage: AnthropicUsage = {};
  stopReason: unknown;
  modelId: string | undefined;
  messageId: string | undefined;
  started = false;

  constructor(readonly outputToolName: string | undefined) {}

  block(index: unknown): AnthropicBlock {
    const block = typeof index === "number" ? this.blocks.get(index) : undefined;
    if (block === undefined) throw malformed(`an event refers to content block ${String(index)}, never started`);
    return block;
  }

  isOutputTool(block: AnthropicBlock): boolean {
    return block.kind === "tool-use" && block.name === this.outputToolName;
  }
}

/**
 * Turns the server-sent events of a streaming Messages API answer into stream parts. The stream
 * completes only at `message_stop`; an `error` event becomes its typed error, `ping` and unknown
 * events are skipped, and a stream that ends before `message_stop` is a {@link StreamTruncatedError}.
 * A call of the emulated structured-output tool streams as text.
 */
export async function* streamAnthropic(
  events: AsyncIterable<EventSourceMessage>,
  outputToolName: string | undefined,
): AsyncGenerator<ModelStreamPart> {
  const message = new MessageAssembly(outputToolName);
  for await (const event of events) {
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      throw malformed(`an event's data is not JSON: ${event.data.slice(0, 200)}`);
    }
    if (typeof data !== "object" || data === null) throw malformed("an event's data is not an object");
    const record = data as Record<string, unknown>;
    const type = typeof record.type === "string" ? record.type : event.event;
    if (type === "message_stop") {
      if (!message.started) throw malformed("message_stop arrived before message_start");
      yield {
        type: "finish",
        response: assembleResponse({
          blocks: [...message.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block),
          stopReason: message.stopReason,
          usage: message.usage,
          modelId: message.modelId,
          messageId: message.messageId,
          outputToolName,
        }),
      };
      return;
    }
    yield* handleEvent(message, type, record);
  }
  throw new StreamTruncatedError({ provider: PROVIDER, message: "the stream ended before message_stop" });
}

function* handleEvent(
  message: MessageAssembly,
  type: string | undefined,
  data: Record<string, unknown>,
): Generator<ModelStreamPart> {
  switch (type) {
    case "message_start": {
      const start = data.message;
      if (typeof start !== "object" || start === null) throw malformed("message_start carries no message");
      const fields = start as Record<string, unknown>;
      message.started = true;
      if (typeof fields.model === "string") message.modelId = fields.model;
      if (typeof fields.id === "string") message.messageId = fields.id;
      message.usage = mergeUsage(message.usage, fields.usage);
      return;
    }
    case "content_block_start": {
      const index = data.index;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0) {
        throw malformed("content_block_start has no valid index");
      }
      if (message.blocks.has(index)) throw malformed(`content block ${index} started twice`);
      const block = blockFromWire(data.content_block, false);
      message.blocks.set(index, block);
      yield* blockStartParts(message, block);
      return;
    }
    case "content_block_delta":
      yield* deltaParts(message, message.block(data.index), data.delta);
      return;
    case "content_block_stop": {
      const block = message.block(data.index);
      block.closed = true;
      if (block.kind === "tool-use" && !message.isOutputTool(block))
        yield { type: "tool-call-end", toolCallId: block.id };
      return;
    }
    case "message_delta": {
      const delta = data.delta as Record<string, unknown> | undefined;
      if (delta !== undefined && delta !== null && "stop_reason" in delta) message.stopReason = delta.stop_reason;
      message.usage = mergeUsage(message.usage, data.usage);
      return;
    }
    case "error":
      throw anthropicStreamError(anthropicErrorOf(data) ?? { type: "unknown_error", message: "(no detail)" });
    default:
      // `ping` and event types added later are skipped, as Anthropic asks clients to do.
      return;
  }
}

function* blockStartParts(message: MessageAssembly, block: AnthropicBlock): Generator<ModelStreamPart> {
  switch (block.kind) {
    case "text":
      if (block.text !== "") yield { type: "text-delta", text: block.text };
      return;
    case "thinking":
      if (block.text !== "") yield { type: "reasoning-delta", text: block.text };
      return;
    case "tool-use":
      if (!message.isOutputTool(block)) yield { type: "tool-call-start", toolCallId: block.id, toolName: block.name };
      return;
    case "redacted-thinking":
    case "server-tool-use":
    case "server-tool-result":
    case "other":
      return;
    default: {
      const unexpected: never = block;
      throw new Error(`unknown block: ${JSON.stringify(unexpected)}`);
    }
  }
}

function* deltaParts(message: MessageAssembly, block: AnthropicBlock, value: unknown): Generator<ModelStreamPart> {
  if (typeof value !== "object" || value === null) throw malformed("content_block_delta carries no delta");
  const delta = value as Record<string, unknown>;
  if (block.closed) throw malformed("a delta arrived for a closed content block");
  // A block this adapter does not surface takes any delta: a server tool's input (`server_tool_use`,
  // `mcp_tool_use` stream `input_json_delta`), or a kind of delta added later.
  if (block.kind === "other" || block.kind === "server-tool-result") return;
  if (block.kind === "server-tool-use") {
    if (delta.type === "input_json_delta" && typeof delta.partial_json === "string")
      block.argsText += delta.partial_json;
    return;
  }
  const mismatch = () => malformed(`a ${String(delta.type)} arrived for a ${block.kind} block`);
  switch (delta.type) {
    case "text_delta": {
      if (block.kind !== "text" || typeof delta.text !== "string") throw mismatch();
      block.text += delta.text;
      if (delta.text !== "") yield { type: "text-delta", text: delta.text };
      return;
    }
    case "input_json_delta": {
      if (block.kind !== "tool-use" || typeof delta.partial_json !== "string") throw mismatch();
      block.argsText += delta.partial_json;
      if (delta.partial_json === "") return;
      if (message.isOutputTool(block)) yield { type: "text-delta", text: delta.partial_json };
      else yield { type: "tool-call-delta", toolCallId: block.id, argsTextDelta: delta.partial_json };
      return;
    }
    case "thinking_delta": {
      if (block.kind !== "thinking" || typeof delta.thinking !== "string") throw mismatch();
      block.text += delta.thinking;
      if (delta.thinking !== "") yield { type: "reasoning-delta", text: delta.thinking };
      return;
    }
    case "signature_delta": {
      if (block.kind !== "thinking" || typeof delta.signature !== "string") throw mismatch();
      block.signature = (block.signature ?? "") + delta.signature;
      return;
    }
    case "citations_delta":
      if (block.kind === "text" && delta.citation !== undefined) block.citations.push(delta.citation);
      return;
    default:
      // Delta types added later carry nothing this adapter surfaces.
      return;
  }
}
