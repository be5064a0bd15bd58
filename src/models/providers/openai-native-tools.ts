import type { ResponsePart } from "../model.js";
import type { ProviderTool, Source } from "../provider-tool.js";
import { fileSource, list, renamed, text, urlSource, wireProviderTools } from "./shared/native-tools.js";

/** What `include` asks for so that each hosted tool's results come back. */
const includeOf: Readonly<Record<string, string>> = {
  web_search: "web_search_call.action.sources",
  file_search: "file_search_call.results",
  code_interpreter: "code_interpreter_call.outputs",
};

function location(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  return { type: "approximate", ...(value as Record<string, unknown>) };
}

/** A provider tool in the Responses API's `tools` form, or undefined when it is not an OpenAI hosted tool. */
function responsesTool(tool: ProviderTool): Record<string, unknown> | undefined {
  const args = tool.args;
  switch (tool.name) {
    case "web_search": {
      const wire: Record<string, unknown> = {
        type: "web_search",
        ...renamed(args, { searchContextSize: "search_context_size" }),
      };
      const where = location(args.userLocation);
      if (where !== undefined) wire.user_location = where;
      if (Array.isArray(args.allowedDomains)) wire.filters = { allowed_domains: args.allowedDomains };
      return wire;
    }
    case "file_search": {
      const wire: Record<string, unknown> = {
        type: "file_search",
        ...renamed(args, { vectorStoreIds: "vector_store_ids", maxNumResults: "max_num_results", filters: "filters" }),
      };
      if (typeof args.ranking === "object" && args.ranking !== null) {
        wire.ranking_options = renamed(args.ranking as Record<string, unknown>, {
          ranker: "ranker",
          scoreThreshold: "score_threshold",
        });
      }
      return wire;
    }
    case "code_interpreter": {
      const container =
        typeof args.container === "string"
          ? args.container
          : { type: "auto", ...(Array.isArray(args.fileIds) ? { file_ids: args.fileIds } : {}) };
      return { type: "code_interpreter", container };
    }
    default:
      return undefined;
  }
}

/**
 * The Responses API wire form of a request's provider tools (added after the function tools), and
 * the `include` entries that bring their results back. Tools of other providers are a
 * `ProviderToolUnsupportedError`.
 */
export function openAIResponsesTools(tools: readonly ProviderTool[] | undefined): {
  tools: Record<string, unknown>[];
  include: string[];
} {
  const wire = wireProviderTools(tools, "openai", "openai-responses", responsesTool);
  const include = (tools ?? []).flatMap((tool) =>
    includeOf[tool.name] === undefined ? [] : [includeOf[tool.name] as string],
  );
  return { tools: wire, include };
}

/**
 * The Chat Completions fields for a request's provider tools: web search becomes `web_search_options`
 * (search models only); every other hosted tool is a `ProviderToolUnsupportedError`.
 */
export function openAIChatToolFields(tools: readonly ProviderTool[] | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  wireProviderTools(tools, "openai", "openai-chat", (tool) => {
    if (tool.name !== "web_search" || tool.args.allowedDomains !== undefined) return undefined;
    const options = renamed(tool.args, { searchContextSize: "search_context_size" });
    const where = tool.args.userLocation;
    if (typeof where === "object" && where !== null)
      options.user_location = { type: "approximate", approximate: where };
    fields.web_search_options = options;
    return options;
  });
  return fields;
}

/** The sources an `output_text`'s annotations cite (URL citations, file citations, file paths). */
export function annotationSources(annotations: readonly unknown[]): Source[] {
  const sources: Source[] = [];
  for (const annotation of annotations) {
    const url = text(annotation, "url");
    const fileId = text(annotation, "file_id");
    if (text(annotation, "type") === "url_citation" && url !== undefined) {
      sources.push(urlSource(url, text(annotation, "title")));
    } else if (fileId !== undefined) {
      sources.push(fileSource(fileId, text(annotation, "filename")));
    }
  }
  return sources;
}

/** The annotations of every `output_text` of a message item. */
export function messageAnnotations(item: unknown): unknown[] {
  return list(item, "content").flatMap((part) => list(part, "annotations"));
}

function stripSources(action: unknown): unknown {
  if (typeof action !== "object" || action === null) return {};
  const { sources: _sources, ...rest } = action as Record<string, unknown>;
  return rest;
}

/**
 * A hosted tool's output item (`web_search_call`, `file_search_call`, `code_interpreter_call`) as a
 * provider tool call and its result; undefined for any other item.
 */
export function hostedToolParts(item: unknown): ResponsePart[] | undefined {
  const type = text(item, "type");
  const id = text(item, "id");
  if (id === undefined) return undefined;
  const status = text(item, "status");
  const record = item as Record<string, unknown>;
  const isError = status === "failed" || status === "incomplete";
  switch (type) {
    case "web_search_call": {
      const action = record.action;
      const sources = list(action, "sources").flatMap((source) => {
        const url = text(source, "url");
        return url === undefined ? [] : [urlSource(url, text(source, "title"))];
      });
      return [
        { type: "provider-tool-call", toolCallId: id, toolName: "web_search", input: stripSources(action) },
        {
          type: "provider-tool-result",
          toolCallId: id,
          toolName: "web_search",
          result: { status: status ?? null, sources: list(action, "sources") },
          isError,
          ...(sources.length > 0 ? { sources } : {}),
        },
      ];
    }
    case "file_search_call": {
      const results = list(record, "results");
      const sources = results.flatMap((result) => {
        const fileId = text(result, "file_id");
        return fileId === undefined ? [] : [fileSource(fileId, text(result, "filename"))];
      });
      return [
        {
          type: "provider-tool-call",
          toolCallId: id,
          toolName: "file_search",
          input: { queries: list(record, "queries") },
        },
        {
          type: "provider-tool-result",
          toolCallId: id,
          toolName: "file_search",
          result: { status: status ?? null, results },
          isError,
          ...(sources.length > 0 ? { sources } : {}),
        },
      ];
    }
    case "code_interpreter_call":
      return [
        {
          type: "provider-tool-call",
          toolCallId: id,
          toolName: "code_interpreter",
          input: { code: text(record, "code") ?? "", containerId: text(record, "container_id") ?? null },
        },
        {
          type: "provider-tool-result",
          toolCallId: id,
          toolName: "code_interpreter",
          result: { status: status ?? null, outputs: list(record, "outputs") },
          isError,
        },
      ];
    default:
      return undefined;
  }
}

/** The sources of a Chat Completions message's `annotations` (`{ type: "url_citation", url_citation: { url, title } }`). */
export function chatAnnotationSources(annotations: unknown): Source[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.flatMap((annotation) => {
    const citation = (annotation as { url_citation?: unknown } | null)?.url_citation;
    const url = text(citation, "url");
    return url === undefined ? [] : [urlSource(url, text(citation, "title"))];
  });
}
