import type { AssistantPart, Message } from "../../session/messages.js";
import type { ModelRequest, ToolChoice } from "../model.js";
import { openAICacheFields } from "./openai-cache.js";
import { toolResultText } from "./openai-chat-request.js";
import { type ResponsesContentPart, responsesContentPart, responsesToolOutput } from "./openai-content.js";
import { openAIResponsesTools } from "./openai-native-tools.js";
import { mergeTools, nameField } from "./shared/provider-tools.js";

type InputContent = ResponsesContentPart;

type InputItem =
  | { role: "system" | "user"; content: string | InputContent[] }
  | { role: "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | InputContent[] }
  | { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[]; encrypted_content?: string };

/** What `include` asks for so that reasoning can be sent back without the API storing it. */
const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/**
 * Whether a model id names an OpenAI reasoning model (o-series, GPT-5 and later, Codex), which
 * accepts `include: ["reasoning.encrypted_content"]`; other models reject it. An unknown id counts
 * as not reasoning: its reasoning is then not carried from turn to turn, but no request fails.
 */
export function isOpenAIReasoningModel(modelId: string): boolean {
  return /^(o\d|gpt-([5-9]|\d\d)|codex)/.test(modelId) && !/-chat/.test(modelId);
}

/**
 * The Responses API body for a request. Earlier answers are replayed as input items: text as
 * assistant messages, tool calls as `function_call`, results as `function_call_output`, and
 * reasoning items as the API allows for the request's `store` mode:
 *
 * - `store: false` (the default; stateless, nothing kept by OpenAI): reasoning models are asked for
 *   `reasoning.encrypted_content`, and a reasoning item is sent back with it (id, summary and the
 *   encrypted content); one without it is left out, since its id alone names nothing the API has.
 * - `store: true` (`providerOptions.openai.store`): OpenAI keeps the response, and a reasoning item
 *   it stored is sent back by id.
 *
 * Other keys of `providerOptions[provider]` are copied into the body; its `include` is merged with
 * the one above and its `tools` are added after the function tools (see `mergeTools`).
 */
export function toResponsesBody(
  modelId: string,
  request: ModelRequest,
  options: { stream: boolean; provider: string },
): Record<string, unknown> {
  const { settings } = request;
  const { tools: providerTools, include, ...extra } = settings.providerOptions?.[options.provider] ?? {};
  const stored = extra.store === true;
  const input: InputItem[] = [];
  for (const message of request.messages) input.push(...toInputItems(message, options.provider, stored));
  const body: Record<string, unknown> = { model: modelId, input, store: stored };
  const includes = Array.isArray(include) ? [...include] : [];
  const hosted = openAIResponsesTools(request.providerTools);
  for (const entry of hosted.include) if (!includes.includes(entry)) includes.push(entry);
  const wantsEncrypted = isOpenAIReasoningModel(modelId) || extra.reasoning !== undefined;
  if (!stored && wantsEncrypted && !includes.includes(ENCRYPTED_REASONING)) includes.push(ENCRYPTED_REASONING);
  if (includes.length > 0) body.include = includes;
  if (request.instructions !== undefined && request.instructions !== "") body.instructions = request.instructions;
  const tools = mergeTools({
    provider: options.provider,
    functionTools: [
      ...request.tools.map((tool) => ({
        type: "function",
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        strict: false,
      })),
      ...hosted.tools,
    ],
    functionNames: request.tools.map((tool) => tool.name),
    providerTools,
    namesOf: nameField,
  });
  if (tools !== undefined) body.tools = tools;
  if (request.tools.length > 0 && request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
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
  return { ...body, ...openAICacheFields(request, options.provider), ...extra };
}

function toInputItems(message: Message, provider: string, stored: boolean): InputItem[] {
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
              : message.content.map((part) => responsesContentPart(part, provider)),
        },
      ];
    case "assistant":
      return message.content.flatMap((part) => assistantItems(part, provider, stored));
    case "tool":
      return [
        {
          type: "function_call_output",
          call_id: message.toolCallId,
          output: responsesToolOutput(message, toolResultText(message.result), provider),
        },
      ];
    default: {
      const unknownMessage: never = message;
      throw new Error(`unknown message ${JSON.stringify(unknownMessage)}`);
    }
  }
}

function assistantItems(part: AssistantPart, provider: string, stored: boolean): InputItem[] {
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
      const encrypted = metadata?.encryptedContent;
      const summary = part.text === "" ? [] : [{ type: "summary_text" as const, text: part.text }];
      if (typeof id !== "string") return [];
      if (typeof encrypted === "string") return [{ type: "reasoning", id, summary, encrypted_content: encrypted }];
      // Without its encrypted content, the id must name an item OpenAI stored, and only a request with store kept one.
      return stored && metadata?.stored === true ? [{ type: "reasoning", id, summary }] : [];
    }
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown assistant part ${JSON.stringify(unknownPart)}`);
    }
  }
}

function toToolChoice(choice: ToolChoice): unknown {
  if (typeof choice === "string") return choice;
  return { type: "function", name: choice.toolName };
}
