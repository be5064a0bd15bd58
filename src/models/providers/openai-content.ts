import type { UnsupportedContentPlace } from "../../errors/unsupported-content-error.js";
import type { Message, ToolMessage, ToolResultPart, UserContentPart } from "../../session/messages.js";
import { type BinaryPart, mediaKind, partData, unsupportedContent } from "./shared/media-content.js";

/** A Chat Completions content part. */
export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "file"; file: { filename: string; file_data: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } };

/** A Responses API input content part (also what a `function_call_output` may carry). */
export type ResponsesContentPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string }
  | { type: "input_file"; filename: string; file_data: string };

/** A `data:` URL for base64 data; URLs (http, https, data) are passed through. */
export function dataUrl(data: string, mediaType: string): string {
  return /^(https?:|data:)/.test(data) ? data : `data:${mediaType};base64,${data}`;
}

/**
 * A user content part as Chat Completions takes it: `image_url` with a data URL, `file` with
 * `file_data` and `filename`, `input_audio` with the raw base64 and `wav`/`mp3` (other audio formats,
 * and audio by URL, are an `UnsupportedContentError`).
 */
export function chatContentPart(
  part: UserContentPart,
  provider: string,
  place: UnsupportedContentPlace = "user_message",
): ChatContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  switch (mediaKind(part)) {
    case "image":
      return { type: "image_url", image_url: { url: dataUrl(part.data, part.mediaType) } };
    case "audio":
      return { type: "input_audio", input_audio: chatAudio(part, provider, place) };
    default:
      return { type: "file", file: { filename: filenameOf(part), file_data: dataUrl(part.data, part.mediaType) } };
  }
}

function chatAudio(
  part: BinaryPart,
  provider: string,
  place: UnsupportedContentPlace,
): { data: string; format: "wav" | "mp3" } {
  const data = partData(part.data, part.mediaType);
  if (data.kind === "url") throw unsupportedContent(provider, part, place, "input_audio takes base64 data, not a URL");
  const type = data.mediaType.toLowerCase();
  if (/^audio\/(wav|x-wav|wave|vnd\.wave)$/.test(type)) return { data: data.data, format: "wav" };
  if (/^audio\/(mpeg|mp3|mpeg3|x-mpeg-3)$/.test(type)) return { data: data.data, format: "mp3" };
  throw unsupportedContent(provider, part, place, "input_audio reads wav and mp3 only");
}

/** The text of a Chat tool message: the result, the text parts of its content, and a pointer to its attachments. */
export function chatToolText(message: ToolMessage, resultText: string): string {
  const content = message.content ?? [];
  const texts = content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  const attached = content.length - texts.length;
  const lines = [resultText, ...texts];
  if (attached > 0) lines.push(`[${attached} attachment(s) of this result follow in a user message]`);
  return lines.filter((line) => line !== "").join("\n\n");
}

/**
 * Chat tool messages carry text only: the images, files and audio of a tool result go in a user
 * message labelled with the call id. Returns `converted` (the history's messages, one list per
 * message) flattened, with those user messages placed after the last tool message of each run of
 * tool messages — after every result of the assistant turn, where Chat Completions allows a user message.
 * Appends to `out` (every request converts the whole history: no list or iterator per message).
 */
export function withChatToolAttachments<T>(
  messages: readonly Message[],
  converted: readonly (readonly T[])[],
  provider: string,
  out: (T | { role: "user"; content: ChatContentPart[] })[] = [],
): (T | { role: "user"; content: ChatContentPart[] })[] {
  let pending: { role: "user"; content: ChatContentPart[] }[] | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== "tool" && pending !== undefined) {
      for (const attachment of pending) out.push(attachment);
      pending = undefined;
    }
    const parts = converted[index];
    if (parts !== undefined) for (let part = 0; part < parts.length; part++) out.push(parts[part] as T);
    if (message.role === "tool" && message.content !== undefined && message.content.length > 0) {
      const attachment = chatAttachmentMessage(message, provider);
      if (attachment !== undefined) {
        pending ??= [];
        pending.push(attachment);
      }
    }
  }
  if (pending !== undefined) for (const attachment of pending) out.push(attachment);
  return out;
}

function chatAttachmentMessage(
  message: ToolMessage,
  provider: string,
): { role: "user"; content: ChatContentPart[] } | undefined {
  const binary = (message.content ?? []).filter((part) => part.type !== "text");
  if (binary.length === 0) return undefined;
  const label = `Attachments of the result of tool call ${message.toolCallId} (${message.toolName}):`;
  return {
    role: "user",
    content: [{ type: "text", text: label }, ...binary.map((part) => chatContentPart(part, provider, "tool_result"))],
  };
}

/**
 * A content part as the Responses API takes it: `input_text`, `input_image` (a data URL),
 * `input_file` (`file_data` and `filename`). The API has no audio input: `UnsupportedContentError`.
 */
export function responsesContentPart(
  part: UserContentPart,
  provider: string,
  place: UnsupportedContentPlace = "user_message",
): ResponsesContentPart {
  if (part.type === "text") return { type: "input_text", text: part.text };
  switch (mediaKind(part)) {
    case "image":
      return { type: "input_image", image_url: dataUrl(part.data, part.mediaType) };
    case "audio":
      throw unsupportedContent(provider, part, place, "the Responses API has no audio input");
    default:
      return { type: "input_file", filename: filenameOf(part), file_data: dataUrl(part.data, part.mediaType) };
  }
}

/** A `function_call_output`'s `output`: the result's text, or with content parts an array of input parts. */
export function responsesToolOutput(
  message: ToolMessage,
  resultText: string,
  provider: string,
): string | ResponsesContentPart[] {
  const content: readonly ToolResultPart[] = message.content ?? [];
  if (content.length === 0) return resultText;
  const parts: ResponsesContentPart[] = resultText === "" ? [] : [{ type: "input_text", text: resultText }];
  for (const part of content) parts.push(responsesContentPart(part, provider, "tool_result"));
  return parts;
}

function filenameOf(part: BinaryPart): string {
  return part.type === "file" && part.filename !== undefined ? part.filename : "file";
}
