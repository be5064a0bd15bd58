import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { McpToolError } from "./mcp-errors.js";

/** How binary content (images, audio, blobs) reaches the model. */
export type BinaryContent = "describe" | "include";

/** One content block as the model sees it. Binary data is described unless `binaryContent: "include"`. */
export type McpContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image" | "audio"; readonly mimeType: string; readonly bytes: number; readonly data?: string }
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
      readonly blob?: string;
    };

/**
 * Turns a `tools/call` result into what the tool returns to the run:
 * - `isError: true` throws `McpToolError` with the result's text, so the model sees a tool error;
 * - text only → the text (blocks joined by a blank line);
 * - `structuredContent` with nothing but text beside it → the structured value (the text is, by
 *   the spec's advice, its serialization);
 * - anything else → `{ content: [...parts], structuredContent? }`.
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
  const parts = content.map((block) => toPart(block, binaryContent));
  return result.structuredContent === undefined
    ? { content: parts }
    : { content: parts, structuredContent: result.structuredContent };
}

function toPart(block: ContentBlock, binaryContent: BinaryContent): McpContentPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio": {
      const described = { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data) };
      return binaryContent === "include" ? { ...described, data: block.data } : described;
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
      return binaryContent === "include"
        ? { ...base, bytes: base64Bytes(blob), blob }
        : { ...base, bytes: base64Bytes(blob) };
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
