import type { AssistantPart, Message } from "../../session/messages.js";
import type { JsonSchema, ModelRequest, ToolChoice } from "../model.js";
import { applyGeminiCache } from "./gemini-cache.js";
import { functionResponsesFirst, geminiToolResultParts, geminiUserParts } from "./gemini-content.js";
import { geminiBuiltinTools } from "./gemini-native-tools.js";
import { mergeTools } from "./shared/provider-tools.js";

type Part = Record<string, unknown>;
interface Content {
  role: "user" | "model";
  parts: Part[];
}

/** Keys of `providerOptions.gemini` that belong inside `generationConfig` rather than at the top level. */
const generationConfigOptions = new Set([
  "thinkingConfig",
  "topK",
  "candidateCount",
  "presencePenalty",
  "frequencyPenalty",
  "responseModalities",
  "mediaResolution",
]);

/**
 * The `generateContent` body for a request: `systemInstruction` from the instructions (and system
 * messages), `contents` with roles user/model, `tools.functionDeclarations` with the JSON Schema in
 * `parametersJsonSchema`, `toolConfig`, and `generationConfig` (structured output as
 * `responseMimeType: "application/json"` + `responseJsonSchema`). Other keys of
 * `settings.providerOptions.gemini` go into `generationConfig` when they are generation settings
 * (`thinkingConfig`, `topK`, ...) and into the body otherwise (`safetySettings`, `cachedContent`);
 * its `tools` (`{ googleSearch: {} }`, ...) are added after the function declarations.
 */
export function buildGeminiRequest(request: ModelRequest): Record<string, unknown> {
  const system: Part[] = request.instructions ? [{ text: request.instructions }] : [];
  const contents = convertMessages(request.messages, system);
  const body: Record<string, unknown> = {};
  const generationConfig: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.settings.providerOptions?.gemini ?? {})) {
    if (key === "tools") continue; // added to the function declarations below
    if (key === "generationConfig" && typeof value === "object" && value !== null)
      Object.assign(generationConfig, value);
    else if (generationConfigOptions.has(key)) generationConfig[key] = value;
    else body[key] = value;
  }
  body.contents = contents;
  if (system.length > 0) body.systemInstruction = { parts: system };
  const declarations = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: cleanSchema(tool.inputSchema),
  }));
  const tools = mergeTools({
    provider: "gemini",
    functionTools: [
      ...(declarations.length > 0 ? [{ functionDeclarations: declarations }] : []),
      ...geminiBuiltinTools(request.providerTools),
    ],
    functionNames: request.tools.map((tool) => tool.name),
    providerTools: request.settings.providerOptions?.gemini?.tools,
    namesOf: declarationNames,
  });
  if (tools !== undefined) body.tools = tools;
  if (request.tools.length > 0) {
    const toolConfig = convertToolChoice(request.toolChoice);
    if (toolConfig !== undefined) body.toolConfig = toolConfig;
  }
  const { settings } = request;
  if (settings.temperature !== undefined) generationConfig.temperature = settings.temperature;
  if (settings.topP !== undefined) generationConfig.topP = settings.topP;
  if (settings.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = settings.maxOutputTokens;
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0) {
    generationConfig.stopSequences = [...settings.stopSequences];
  }
  if (settings.seed !== undefined) generationConfig.seed = settings.seed;
  if (request.output !== undefined) {
    generationConfig.responseMimeType = "application/json";
    generationConfig.responseJsonSchema = cleanSchema(request.output.schema);
  }
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  applyGeminiCache(body, request);
  return body;
}

/** The function names a Gemini tool entry declares (`{ functionDeclarations: [...] }`; none for `{ googleSearch: {} }`). */
function declarationNames(tool: unknown): readonly string[] {
  const declarations =
    typeof tool === "object" && tool !== null
      ? (tool as { functionDeclarations?: unknown }).functionDeclarations
      : undefined;
  if (!Array.isArray(declarations)) return [];
  return declarations.flatMap((declaration: { name?: unknown } | null) =>
    typeof declaration?.name === "string" ? [declaration.name] : [],
  );
}

/** JSON Schema as Gemini's `*JsonSchema` fields take it: the `$schema` dialect marker is left out. */
function cleanSchema(schema: JsonSchema): JsonSchema {
  if (!("$schema" in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function convertToolChoice(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  if (choice === undefined) return undefined;
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.toolName] } };
}

function convertMessages(messages: readonly Message[], system: Part[]): Content[] {
  // Gemini's own call ids are echoed back; ids this adapter generated are not Gemini's to know.
  const vendorIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type === "tool-call" && typeof part.providerMetadata?.gemini?.callId === "string") {
        vendorIds.add(part.toolCallId);
      }
    }
  }
  const contents: Content[] = [];
  const push = (role: Content["role"], parts: Part[]): void => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push({ text: message.content });
        break;
      case "user":
        push("user", geminiUserParts(message.content));
        break;
      case "assistant":
        push("model", message.content.flatMap(convertAssistantPart));
        break;
      case "tool": {
        const functionResponse: Record<string, unknown> = {
          name: message.toolName,
          response: message.isError ? { error: jsonValue(message.result) } : { output: jsonValue(message.result) },
        };
        if (vendorIds.has(message.toolCallId)) functionResponse.id = message.toolCallId;
        push("user", geminiToolResultParts(message, functionResponse));
        break;
      }
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role: ${JSON.stringify(unexpected)}`);
      }
    }
  }
  for (const content of contents) if (content.role === "user") content.parts = functionResponsesFirst(content.parts);
  return contents;
}

function withSignature(part: Part, signature: unknown): Part {
  return typeof signature === "string" && signature !== "" ? { ...part, thoughtSignature: signature } : part;
}

function convertAssistantPart(part: AssistantPart): Part[] {
  const gemini = part.providerMetadata?.gemini;
  switch (part.type) {
    case "text":
      if (part.text === "" && typeof gemini?.thoughtSignature !== "string") return [];
      return [withSignature({ text: part.text }, gemini?.thoughtSignature)];
    case "reasoning":
      // Only Gemini's own thoughts go back (with their signature); other providers' reasoning is dropped.
      if (gemini === undefined) return [];
      return [withSignature({ text: part.text, thought: true }, gemini.thoughtSignature)];
    case "tool-call": {
      const functionCall: Record<string, unknown> = { name: part.toolName, args: argsObject(part.args) };
      if (typeof gemini?.callId === "string") functionCall.id = gemini.callId;
      return [withSignature({ functionCall }, gemini?.thoughtSignature)];
    }
    default: {
      const unexpected: never = part;
      throw new Error(`unknown assistant part: ${JSON.stringify(unexpected)}`);
    }
  }
}

/** Gemini wants the arguments as an object; anything else is sent as `{}`. */
function argsObject(args: unknown): Record<string, unknown> {
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

/** A tool result as a JSON value (`undefined` becomes `null`; values JSON cannot carry are dropped by it). */
function jsonValue(result: unknown): unknown {
  if (result === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(result) ?? "null");
  } catch {
    return String(result);
  }
}
