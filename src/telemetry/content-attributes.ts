import { redactText } from "../redaction/secret-registry.js";
import type { AssistantPart, Message, UserContentPart } from "../session/messages.js";

/** A message part in the shape of the GenAI conventions' `gen_ai.input.messages` / `gen_ai.output.messages`. */
type ContentPart =
  | { readonly type: "text"; readonly content: string }
  | { readonly type: "reasoning"; readonly content: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: "tool_call_response"; readonly id: string; readonly response: unknown }
  | { readonly type: "blob"; readonly modality: string; readonly mime_type: string };

interface ContentMessage {
  readonly role: string;
  readonly parts: readonly ContentPart[];
  readonly finish_reason?: string;
}

/**
 * A value as a span attribute holds content: JSON text, with any registered secret replaced by its
 * placeholder. The log it comes from has them replaced already; this is a second guard.
 */
export function contentJson(value: unknown): string {
  return redactText(typeof value === "string" ? value : (JSON.stringify(value) ?? "null"));
}

/** `gen_ai.input.messages`: the messages a request sent, as JSON. Images and files are named by type, not sent. */
export function inputMessages(messages: readonly Message[]): string {
  return contentJson(messages.map(contentMessage));
}

/** `gen_ai.output.messages`: the model's answer, as JSON. */
export function outputMessages(content: readonly AssistantPart[], finishReason: string): string {
  return contentJson([{ role: "assistant", parts: content.map(assistantPart), finish_reason: finishReason }]);
}

/** `gen_ai.system_instructions`: the system text, as JSON. */
export function systemInstructions(instructions: string): string {
  return contentJson([{ type: "text", content: instructions }]);
}

function contentMessage(message: Message): ContentMessage {
  switch (message.role) {
    case "system":
      return { role: "system", parts: [{ type: "text", content: message.content }] };
    case "user":
      return {
        role: "user",
        parts:
          typeof message.content === "string"
            ? [{ type: "text", content: message.content }]
            : message.content.map(userPart),
      };
    case "assistant":
      return { role: "assistant", parts: message.content.map(assistantPart) };
    case "tool":
      return {
        role: "tool",
        parts: [{ type: "tool_call_response", id: message.toolCallId, response: message.result }],
      };
    default: {
      const unhandled: never = message;
      throw new TypeError(`unknown message ${JSON.stringify(unhandled)}`);
    }
  }
}

function userPart(part: UserContentPart): ContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", content: part.text };
    case "image":
    case "file":
    case "audio":
      return { type: "blob", modality: part.type, mime_type: part.mediaType };
    default: {
      const unhandled: never = part;
      throw new TypeError(`unknown user part ${JSON.stringify(unhandled)}`);
    }
  }
}

function assistantPart(part: AssistantPart): ContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", content: part.text };
    case "reasoning":
      return { type: "reasoning", content: part.text };
    case "tool-call":
      return { type: "tool_call", id: part.toolCallId, name: part.toolName, arguments: part.args };
    default: {
      const unhandled: never = part;
      throw new TypeError(`unknown assistant part ${JSON.stringify(unhandled)}`);
    }
  }
}
