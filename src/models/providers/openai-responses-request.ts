import type { AssistantPart, Message, UserContentPart } from "../../session/messages.js";
import type { ModelRequest, ToolChoice } from "../model.js";
import { dataUrl, toolResultText } from "./openai-chat-request.js";

type InputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string }
  | { type: "input_file"; filename: string; file_data: string };

type InputItem =
  | { role: "system" | "user"; content: string | InputContent[] }
  | { role: "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[]; encrypted_content?: string };

/**
 * The Responses API body for a request. Earlier answers are replayed as input items: text as
 * assistant messages, tool calls as `function_call`, results as `function_call_output`, and
 * reasoning only when the provider's item id came back with it (it cannot be recreated otherwise).
 */
export function toResponsesBody(
  modelId: string,
  request: ModelRequest,
  options: { stream: boolean; provider: string },
): Record<string, unknown> {
  const { settings } = request;
  const input: InputItem[] = [];
  for (const message of request.messages) input.push(...toInputItems(message, options.provider));
  const body: Record<string, unknown> = { model: modelId, input, store: false };
  if (request.instructions !== undefined && request.instructions !== "") body.instructions = request.instructions;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict: false,
    }));
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
  }
  if (request.output !== undefined) {
    body.text = {
      format: {
        type: "json_schema",
        name: request.output.name,
        ...(request.output.description === undefined ? {} : { description: request.output.description }),
        schema: request.output.schema,
        strict: true,
      },
    };
  }
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.maxOutputTokens !== undefined) body.max_output_tokens = settings.maxOutputTokens;
  if (options.stream) body.stream = true;
  return { ...body, ...settings.providerOptions?.[options.provider] };
}

function toInputItems(message: Message, provider: string): InputItem[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }];
    case "user":
      return [
        {
          role: "user",
          content: typeof message.content === "string" ? message.content : message.content.map(toInputContent),
        },
      ];
    case "assistant":
      return message.content.flatMap((part) => assistantItems(part, provider));
    case "tool":
      return [{ type: "function_call_output", call_id: message.toolCallId, output: toolResultText(message.result) }];
    default: {
      const unknownMessage: never = message;
      throw new Error(`unknown message ${JSON.stringify(unknownMessage)}`);
    }
  }
}

function assistantItems(part: AssistantPart, provider: string): InputItem[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ role: "assistant", content: part.text }];
    case "tool-call": {
      const args = typeof part.args === "string" ? part.args : JSON.stringify(part.args ?? {});
      return [{ type: "function_call", call_id: part.toolCallId, name: part.toolName, arguments: args }];
    }
    case "reasoning": {
      const metadata = part.providerMetadata?.[provider];
      const id = metadata?.itemId;
      if (typeof id !== "string") return [];
      const encrypted = metadata?.encryptedContent;
      return [
        {
          type: "reasoning",
          id,
          summary: part.text === "" ? [] : [{ type: "summary_text", text: part.text }],
          ...(typeof encrypted === "string" ? { encrypted_content: encrypted } : {}),
        },
      ];
    }
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown assistant part ${JSON.stringify(unknownPart)}`);
    }
  }
}

function toInputContent(part: UserContentPart): InputContent {
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text };
    case "image":
      return { type: "input_image", image_url: dataUrl(part.data, part.mediaType) };
    case "file":
      return { type: "input_file", filename: part.filename ?? "file", file_data: dataUrl(part.data, part.mediaType) };
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown content part ${JSON.stringify(unknownPart)}`);
    }
  }
}

function toToolChoice(choice: ToolChoice): unknown {
  if (typeof choice === "string") return choice;
  return { type: "function", name: choice.toolName };
}
