import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultPart } from "../session/messages.js";
import { toolContent } from "../tools/tool-content.js";
import { McpToolError } from "./mcp-errors.js";

/** How binary content (images, audio, blobs) reaches the model: described by type and size, or also included as content parts. */
export type BinaryContent = "describe" | "include";

/** One content block as recorded in the result: binary data is described by type and size (see `mapCallToolResult`). */
export type McpContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image" | "audio"; readonly mimeType: string; readonly bytes: number }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    }
  | {
      readonly type: "resource";
      readonly uri: string;
      readonly mimeType?: string;
      readonly text?: string;
      readonly bytes?: number;
    };

/**
 * Turns a `tools/call` result into what the tool returns to the run:
 * - `isError: true` throws `McpToolError` with the result's text, so the model sees a tool error;
 * - text only → the text (blocks joined by a blank line);
 * - `structuredContent` with nothing but text beside it → the structured value (the text is, by
 *   the spec's advice, its serialization);
 * - anything else → `{ content: [...parts], structuredContent? }`, binary blocks described by type
 *   and size; with `binaryContent: "include"` their bytes also reach the model as content parts
 *   (`toolContent`: images as `image`, audio as `audio`, blob resources as `file` parts).
 */
export function mapCallToolResult(
  mcpToolName: string,
  result: CallToolResult,
  binaryContent: BinaryContent = "describe",
): unknown {
  const content = (result.content ?? []) as ContentBlock[];
  if (result.isError === true) {
    const text = content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n\n");
    throw new McpToolError({ mcpToolName, message: text || `MCP tool "${mcpToolName}" reported an error` });
  }
  const onlyText = content.every((block) => block.type === "text");
  if (result.structuredContent !== undefined && onlyText) return result.structuredContent;
  if (onlyText && content.length > 0) return content.map((block) => (block as { text: string }).text).join("\n\n");
  const parts = content.map(toPart);
  const mapped =
    result.structuredContent === undefined
      ? { content: parts }
      : { content: parts, structuredContent: result.structuredContent };
  const binary = binaryContent === "include" ? content.flatMap(toResultPart) : [];
  return binary.length === 0 ? mapped : toolContent(binary, { result: mapped });
}

/** A binary block as a content part for the model; none for text, links and text resources. */
function toResultPart(block: ContentBlock): ToolResultPart[] {
  if ((block.type === "image" || block.type === "audio") && block.data !== "") {
    return [{ type: block.type, data: block.data, mediaType: block.mimeType }];
  }
  if (block.type !== "resource" || !("blob" in block.resource) || typeof block.resource.blob !== "string") return [];
  if (block.resource.blob === "") return [];
  const mediaType = block.resource.mimeType ?? "application/octet-stream";
  const filename = block.resource.uri.split("/").filter(Boolean).at(-1);
  return [{ type: "file", data: block.resource.blob, mediaType, ...(filename === undefined ? {} : { filename }) }];
}

function toPart(block: ContentBlock): McpContentPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio": {
      return { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data) };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
        ...(block.description === undefined ? {} : { description: block.description }),
      };
    case "resource": {
      const resource = block.resource;
      const base = {
        type: "resource" as const,
        uri: resource.uri,
        ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
      };
      if ("text" in resource && typeof resource.text === "string") return { ...base, text: resource.text };
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return { ...base, bytes: base64Bytes(blob) };
    }
    default: {
      const unknownBlock = block as { type?: unknown };
      return { type: "text", text: `[unsupported MCP content of type ${String(unknownBlock.type)}]` };
    }
  }
}

/** The decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
