import type { UnsupportedContentPlace } from "../../errors/unsupported-content-error.js";
import type { ToolMessage, UserContentPart } from "../../session/messages.js";
import { type BinaryPart, mediaKind, partData, partText, unsupportedContent } from "./shared/media-content.js";

type Block = Record<string, unknown>;

/**
 * A user message's content as Messages API blocks: text, `image` (base64 or URL source), a PDF as a
 * `document` (base64 or URL source), a text file as a `document` with a text source. Audio and other
 * file types have no block: `UnsupportedContentError`.
 */
export function anthropicUserBlocks(content: string | readonly UserContentPart[]): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.flatMap((part) => contentBlocks(part, "user_message"));
}

/**
 * A `tool_result` block's `content`: the result's text alone, or — when the tool returned content
 * parts — an array of the text (when not empty) and the parts as text, image and document blocks.
 */
export function anthropicToolResultContent(message: ToolMessage, text: string): string | Block[] {
  if (message.content === undefined || message.content.length === 0) return text;
  const blocks: Block[] = text === "" ? [] : [{ type: "text", text }];
  for (const part of message.content) blocks.push(...contentBlocks(part, "tool_result"));
  return blocks;
}

function contentBlocks(part: UserContentPart, place: UnsupportedContentPlace): Block[] {
  if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
  return [binaryBlock(part, place)];
}

function binaryBlock(part: BinaryPart, place: UnsupportedContentPlace): Block {
  const kind = mediaKind(part);
  switch (kind) {
    case "image":
      return { type: "image", source: source(part) };
    case "pdf":
      return titled({ type: "document", source: source(part) }, part);
    case "text": {
      if (partData(part.data, part.mediaType).kind === "url")
        return titled({ type: "document", source: source(part) }, part);
      const text = partText(part.data, part.mediaType);
      return titled({ type: "document", source: { type: "text", media_type: "text/plain", data: text } }, part);
    }
    case "audio":
      throw unsupportedContent("anthropic", part, place, "the Messages API has no audio input");
    case "other":
      throw unsupportedContent("anthropic", part, place, "documents are PDF or plain text");
    default: {
      const unexpected: never = kind;
      throw new Error(`unknown media kind ${String(unexpected)}`);
    }
  }
}

function source(part: BinaryPart): Block {
  const data = partData(part.data, part.mediaType);
  return data.kind === "url"
    ? { type: "url", url: data.url }
    : { type: "base64", media_type: data.mediaType, data: data.data };
}

function titled(block: Block, part: BinaryPart): Block {
  if (part.type === "file" && part.filename !== undefined) block.title = part.filename;
  return block;
}
