import type { ToolMessage, UserContentPart } from "../../session/messages.js";
import { type BinaryPart, mediaKind, partData } from "./shared/media-content.js";

type Part = Record<string, unknown>;

/** A user message's content as Gemini parts: text, and `inlineData` (or `fileData` for a URL) for every binary part, audio included. */
export function geminiUserParts(content: string | readonly UserContentPart[]): Part[] {
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  return content.flatMap((part): Part[] => {
    if (part.type === "text") return part.text === "" ? [] : [{ text: part.text }];
    return [mediaPart(part)];
  });
}

/**
 * The parts a tool result becomes: its `functionResponse` and, when the tool returned content, the
 * content too. Text parts join the response object as `content`; images, PDFs and text files given
 * as base64 go inside the function response as `functionResponse.parts[].inlineData` (Gemini's
 * multimodal function responses); audio, other types and URLs, which a function response cannot
 * hold, follow it as sibling parts of the same turn.
 */
export function geminiToolResultParts(message: ToolMessage, functionResponse: Record<string, unknown>): Part[] {
  const content = message.content ?? [];
  if (content.length === 0) return [{ functionResponse }];
  const texts = content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  const nested: Part[] = [];
  const siblings: Part[] = [];
  for (const part of content) {
    if (part.type === "text") continue;
    const media = mediaPart(part);
    const kind = mediaKind(part);
    if ("inlineData" in media && (kind === "image" || kind === "pdf" || kind === "text")) nested.push(media);
    else siblings.push(media);
  }
  const response = functionResponse.response as Record<string, unknown>;
  const withContent: Record<string, unknown> = {
    ...functionResponse,
    ...(texts.length > 0 ? { response: { ...response, content: texts.join("\n\n") } } : {}),
    ...(nested.length > 0 ? { parts: nested } : {}),
  };
  return [{ functionResponse: withContent }, ...siblings];
}

/** `fileData` for URLs (Files API, Cloud Storage or web), `inlineData` (base64) otherwise; a `data:` URL is unpacked. */
function mediaPart(part: BinaryPart): Part {
  const data = partData(part.data, part.mediaType);
  return data.kind === "url"
    ? { fileData: { mimeType: part.mediaType, fileUri: data.url } }
    : { inlineData: { mimeType: data.mediaType, data: data.data } };
}

/** A user turn's parts with its function responses first and the rest (a tool's sibling parts, text) after them, each in order. */
export function functionResponsesFirst(parts: readonly Part[]): Part[] {
  const responses = parts.filter((part) => "functionResponse" in part);
  return responses.length === 0 || responses.length === parts.length
    ? [...parts]
    : [...responses, ...parts.filter((part) => !("functionResponse" in part))];
}
