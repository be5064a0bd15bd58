import type { AssistantPart, Message } from "../../session/messages.js";
import type { ModelRequest, ToolChoice } from "../model.js";
import { applyAnthropicCache } from "./anthropic-cache.js";
import { anthropicToolResultContent, anthropicUserBlocks } from "./anthropic-content.js";
import { anthropicServerTools } from "./anthropic-native-tools.js";
import { mergeTools, nameField } from "./shared/provider-tools.js";

/** The tool that carries the answer when structured output is emulated with a forced tool call. */
export const ANTHROPIC_OUTPUT_TOOL = "nous_structured_output";

/** How `request.output` is sent: `output_config.format` (native) or a forced tool call. */
export type AnthropicStructuredOutputMode = "native" | "tool";

export interface AnthropicRequestOptions {
  readonly modelId: string;
  readonly stream: boolean;
  readonly structuredOutput: AnthropicStructuredOutputMode;
}

/** The request body plus what the response reader needs to know about it. */
export interface AnthropicWireRequest {
  readonly body: Record<string, unknown>;
  /** Set when the answer arrives as a call of {@link ANTHROPIC_OUTPUT_TOOL}. */
  readonly outputToolName?: string;
  /** Betas the provider tools need (the `anthropic-beta` header). */
  readonly betas?: readonly string[];
}

type Block = Record<string, unknown>;
interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

/** Option keys of `providerOptions.anthropic` interpreted here and not copied into the body. */
const interpretedOptions = new Set(["structuredOutput", "tools"]);

/**
 * The Messages API body for a request: system from the instructions (and any system messages),
 * alternating user/assistant turns, tools, tool choice, sampling settings and structured output.
 * Unknown keys of `settings.providerOptions.anthropic` (e.g. `thinking`, `top_k`, `metadata`) are
 * copied into the body as wire fields; its `tools` (server tools such as web search) are added
 * after the function tools (see `mergeTools`).
 */
export function buildAnthropicRequest(request: ModelRequest, options: AnthropicRequestOptions): AnthropicWireRequest {
  const extras = wireExtras(request);
  const system: string[] = request.instructions ? [request.instructions] : [];
  const messages = convertMessages(request.messages, system);
  const tools: Block[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  const thinkingOn = isThinkingEnabled(extras.thinking);
  let toolChoice = request.tools.length > 0 ? convertToolChoice(request.toolChoice) : undefined;
  let outputToolName: string | undefined;
  let outputConfig = extras.output_config as Record<string, unknown> | undefined;

  if (request.output !== undefined) {
    if (options.structuredOutput === "native") {
      outputConfig = { ...outputConfig, format: { type: "json_schema", schema: request.output.schema } };
    } else {
      outputToolName = ANTHROPIC_OUTPUT_TOOL;
      tools.push({
        name: ANTHROPIC_OUTPUT_TOOL,
        description: request.output.description ?? `Give the final answer (${request.output.name}).`,
        input_schema: request.output.schema,
      });
      system.push(`Give your final answer by calling the ${ANTHROPIC_OUTPUT_TOOL} tool with it as the input.`);
      // Extended thinking allows only "auto" and "none": the instruction above then does the forcing.
      toolChoice = thinkingOn ? { type: "auto" } : { type: "tool", name: ANTHROPIC_OUTPUT_TOOL };
    }
  }

  const { settings } = request;
  const body: Record<string, unknown> = {
    ...extras,
    model: options.modelId,
    max_tokens: settings.maxOutputTokens ?? defaultMaxTokens(options.modelId, extras.thinking),
    messages,
  };
  if (system.length > 0) body.system = system.join("\n\n");
  const server = anthropicServerTools(request.providerTools);
  const merged = mergeTools({
    provider: "anthropic",
    functionTools: [...tools, ...server.tools],
    functionNames: [...tools, ...server.tools].map((tool) => tool.name as string),
    providerTools: request.settings.providerOptions?.anthropic?.tools,
    namesOf: nameField,
  });
  if (merged !== undefined) body.tools = merged;
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (outputConfig !== undefined) body.output_config = outputConfig;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0) {
    body.stop_sequences = [...settings.stopSequences];
  }
  if (options.stream) body.stream = true;
  else delete body.stream;
  applyAnthropicCache(body, request);
  return {
    body,
    ...(outputToolName === undefined ? {} : { outputToolName }),
    ...(server.betas.length > 0 ? { betas: server.betas } : {}),
  };
}

function wireExtras(request: ModelRequest): Record<string, unknown> {
  const options = request.settings.providerOptions?.anthropic ?? {};
  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (!interpretedOptions.has(key)) extras[key] = value;
  }
  return extras;
}

function isThinkingEnabled(thinking: unknown): boolean {
  return typeof thinking === "object" && thinking !== null && (thinking as { type?: unknown }).type !== "disabled";
}

/** Conservative output budgets: older models cap lower, and a thinking budget needs room for the answer. */
function defaultMaxTokens(modelId: string, thinking: unknown): number {
  const base = /^claude-3-(opus|sonnet|haiku)/.test(modelId) ? 4096 : 8192;
  const budget = (thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
  return typeof budget === "number" && isThinkingEnabled(thinking) ? budget + base : base;
}

function convertToolChoice(choice: ToolChoice | undefined): Block | undefined {
  if (choice === undefined || choice === "auto") return choice === undefined ? undefined : { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  return { type: "tool", name: choice.toolName };
}

function convertMessages(messages: readonly Message[], system: string[]): Turn[] {
  const turns: Turn[] = [];
  const push = (role: Turn["role"], content: Block[]): void => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user":
        push("user", anthropicUserBlocks(message.content));
        break;
      case "assistant":
        push("assistant", message.content.flatMap(convertAssistantPart));
        break;
      case "tool": {
        const block: Block = {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: anthropicToolResultContent(message, resultText(message.result)),
        };
        if (message.isError) block.is_error = true;
        push("user", [block]);
        break;
      }
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role: ${JSON.stringify(unexpected)}`);
      }
    }
  }
  // Tool results must open a user turn; other content (a follow-up text) comes after them.
  for (const turn of turns) {
    if (turn.role === "user") {
      turn.content = [
        ...turn.content.filter((block) => block.type === "tool_result"),
        ...turn.content.filter((block) => block.type !== "tool_result"),
      ];
    }
  }
  return turns;
}

function convertAssistantPart(part: AssistantPart): Block[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "reasoning": {
      // Only thinking that Anthropic signed can be sent back; other providers' reasoning is dropped.
      const meta = part.providerMetadata?.anthropic;
      if (typeof meta?.redactedData === "string") return [{ type: "redacted_thinking", data: meta.redactedData }];
      if (typeof meta?.signature === "string") {
        return [{ type: "thinking", thinking: part.text, signature: meta.signature }];
      }
      return [];
    }
    case "tool-call":
      return [{ type: "tool_use", id: part.toolCallId, name: part.toolName, input: inputObject(part.args) }];
    default: {
      const unexpected: never = part;
      throw new Error(`unknown assistant part: ${JSON.stringify(unexpected)}`);
    }
  }
}

/** Anthropic wants the input as an object; arguments that were not a JSON object are sent as `{}`. */
function inputObject(args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result) ?? "";
}
