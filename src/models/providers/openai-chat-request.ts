import type { Message } from "../../session/messages.js";
import type { ModelRequest, ToolChoice } from "../model.js";
import { openAICacheFields } from "./openai-cache.js";
import { type ChatContentPart, chatContentPart, chatToolText, withChatToolAttachments } from "./openai-content.js";
import { openAIChatToolFields } from "./openai-native-tools.js";
import { mergeTools } from "./shared/provider-tools.js";

/** Which field carries the output token limit: OpenAI's current one, or the older one most servers read. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

type ChatToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * The Chat Completions body for a request. Reasoning parts of earlier answers are not sent back
 * (servers that return `reasoning_content` reject or ignore it in the input). Keys of
 * `providerOptions[provider]` are copied into the body, but its `tools` are added after the
 * function tools (see `mergeTools`).
 */
export function toChatBody(
  modelId: string,
  request: ModelRequest,
  options: { stream: boolean; maxTokensField: MaxTokensField; provider: string },
): Record<string, unknown> {
  const { settings } = request;
  const messages: ChatMessage[] = [];
  if (request.instructions !== undefined && request.instructions !== "") {
    messages.push({ role: "system", content: request.instructions });
  }
  const converted = request.messages.map((message) => chatMessagesOf(message, options.provider));
  withChatToolAttachments(request.messages, converted, options.provider, messages);
  const { tools: providerTools, ...extra } = settings.providerOptions?.[options.provider] ?? {};
  const body: Record<string, unknown> = { model: modelId, messages, ...openAIChatToolFields(request.providerTools) };
  const tools = mergeTools({
    provider: options.provider,
    functionTools: chatToolsOf(request.tools),
    functionNames: request.tools.map((tool) => tool.name),
    providerTools,
    namesOf: chatToolNames,
  });
  if (tools !== undefined) body.tools = tools;
  if (request.tools.length > 0 && request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
  if (request.output !== undefined) {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: request.output.name,
        ...(request.output.description === undefined ? {} : { description: request.output.description }),
        schema: request.output.schema,
        strict: true,
      },
    };
  }
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.maxOutputTokens !== undefined) body[options.maxTokensField] = settings.maxOutputTokens;
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0) body.stop = settings.stopSequences;
  if (settings.seed !== undefined) body.seed = settings.seed;
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { ...body, ...openAICacheFields(request, options.provider), ...extra };
}

/** The name a Chat Completions tool declares: `function.name`, `custom.name`, or `name`. */
function chatToolNames(tool: unknown): readonly string[] {
  if (typeof tool !== "object" || tool === null) return [];
  const {
    function: fn,
    custom,
    name,
  } = tool as { function?: { name?: unknown }; custom?: { name?: unknown }; name?: unknown };
  const declared = fn?.name ?? custom?.name ?? name;
  return typeof declared === "string" ? [declared] : [];
}

// A run sends its whole history with every request, and the runner's messages and tool lists are
// frozen and reused from one request to the next: each is converted once, not once per request.
const convertedMessages = new WeakMap<Message, readonly ChatMessage[]>();
const convertedTools = new WeakMap<ModelRequest["tools"], readonly unknown[]>();

function chatMessagesOf(message: Message, provider: string): readonly ChatMessage[] {
  if (!Object.isFrozen(message)) return toChatMessages(message, provider);
  let converted = convertedMessages.get(message);
  if (converted === undefined) {
    converted = toChatMessages(message, provider);
    convertedMessages.set(message, converted);
  }
  return converted;
}

function chatToolsOf(tools: ModelRequest["tools"]): readonly unknown[] {
  const cacheable = Object.isFrozen(tools);
  let converted = cacheable ? convertedTools.get(tools) : undefined;
  if (converted === undefined) {
    converted = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    if (cacheable) convertedTools.set(tools, converted);
  }
  return converted;
}

function toChatMessages(message: Message, provider: string): ChatMessage[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }];
    case "user":
      return [
        {
          role: "user",
          content:
            typeof message.content === "string"
              ? message.content
              : message.content.map((part) => chatContentPart(part, provider)),
        },
      ];
    case "assistant": {
      const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      const toolCalls: ChatToolCall[] = [];
      for (const part of message.content) {
        if (part.type !== "tool-call") continue;
        const args = typeof part.args === "string" ? part.args : JSON.stringify(part.args ?? {});
        toolCalls.push({ id: part.toolCallId, type: "function", function: { name: part.toolName, arguments: args } });
      }
      return [
        {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      ];
    }
    case "tool":
      return [
        {
          role: "tool",
          tool_call_id: message.toolCallId,
          content: chatToolText(message, toolResultText(message.result)),
        },
      ];
    default: {
      const unknownMessage: never = message;
      throw new Error(`unknown message ${JSON.stringify(unknownMessage)}`);
    }
  }
}

/** A tool result as the text a tool message carries. */
export function toolResultText(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result) ?? "null";
}

function toToolChoice(choice: ToolChoice): unknown {
  if (typeof choice === "string") return choice;
  return { type: "function", function: { name: choice.toolName } };
}
