import type { ResponsePart } from "../model.js";
import type { ProviderTool, Source } from "../provider-tool.js";
import { list, renamed, text, urlSource, wireProviderTools } from "./shared/native-tools.js";

/** The beta the code execution tool needs (sent as the `anthropic-beta` header). */
export const CODE_EXECUTION_BETA = "code-execution-2025-08-25";

function serverTool(tool: ProviderTool): Record<string, unknown> | undefined {
  switch (tool.name) {
    case "web_search": {
      const wire: Record<string, unknown> = {
        type: "web_search_20250305",
        name: "web_search",
        ...renamed(tool.args, {
          maxUses: "max_uses",
          allowedDomains: "allowed_domains",
          blockedDomains: "blocked_domains",
        }),
      };
      const where = tool.args.userLocation;
      if (typeof where === "object" && where !== null) wire.user_location = { type: "approximate", ...where };
      return wire;
    }
    case "code_execution":
      return { type: "code_execution_20250825", name: "code_execution" };
    default:
      return undefined;
  }
}

/**
 * The Messages API wire form of a request's provider tools (added after the function tools) and the
 * betas they need. Tools of other providers are a `ProviderToolUnsupportedError`.
 */
export function anthropicServerTools(tools: readonly ProviderTool[] | undefined): {
  tools: Record<string, unknown>[];
  betas: string[];
} {
  const wire = wireProviderTools(tools, "anthropic", "anthropic", serverTool);
  const betas = (tools ?? []).some((tool) => tool.name === "code_execution") ? [CODE_EXECUTION_BETA] : [];
  return { tools: wire, betas };
}

/** The `anthropic-beta` header for a request: its betas joined with any the caller's headers set. */
export function betaHeader(
  betas: readonly string[] | undefined,
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  if (betas === undefined || betas.length === 0) return {};
  const given = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "anthropic-beta");
  const all = [...(given?.[1] ?? "").split(",").map((beta) => beta.trim()), ...betas].filter((beta) => beta !== "");
  return { [given?.[0] ?? "anthropic-beta"]: [...new Set(all)].join(",") };
}

/** Whether a content block is the result of a server tool (`web_search_tool_result`, `bash_code_execution_tool_result`, ...). */
export function isServerToolResult(block: Record<string, unknown>): boolean {
  const type = typeof block.type === "string" ? block.type : "";
  return type.endsWith("_tool_result") && type !== "mcp_tool_result" && typeof block.tool_use_id === "string";
}

/** A `server_tool_use` block as a provider tool call (input that is not JSON is kept as its text). */
export function serverToolCall(id: string, name: string, argsText: string): ResponsePart {
  let input: unknown = argsText;
  try {
    input = JSON.parse(argsText === "" ? "{}" : argsText);
  } catch {
    // kept as text
  }
  return { type: "provider-tool-call", toolCallId: id, toolName: name, input };
}

/** A server tool's result block as a provider tool result, with the pages a search or fetch returned as sources. */
export function serverToolResult(block: Record<string, unknown>, toolName: string | undefined): ResponsePart {
  const content = block.content;
  const contentType = text(content, "type") ?? "";
  const sources: Source[] = [];
  for (const entry of Array.isArray(content) ? content : [content]) {
    const url = text(entry, "url");
    if (url !== undefined) sources.push(urlSource(url, text(entry, "title")));
  }
  const type = String(block.type);
  return {
    type: "provider-tool-result",
    toolCallId: String(block.tool_use_id),
    toolName: toolName ?? type.slice(0, -"_tool_result".length),
    result: content ?? null,
    isError: contentType.endsWith("_error"),
    ...(sources.length > 0 ? { sources } : {}),
  };
}

/** The sources a text block's `citations` name (web search results; other citation kinds name no URL). */
export function citationSources(citations: readonly unknown[]): Source[] {
  return citations.flatMap((citation) => {
    const url = text(citation, "url") ?? text(citation, "source");
    return url === undefined ? [] : [urlSource(url, text(citation, "title"), text(citation, "cited_text"))];
  });
}

/** A text block's citations as given (none when absent). */
export function blockCitations(block: Record<string, unknown>): unknown[] {
  return [...list(block, "citations")];
}
