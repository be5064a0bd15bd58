import { ProviderToolUnsupportedError } from "../../../errors/provider-tool-error.js";
import type { ResponsePart } from "../../model.js";
import type { ProviderTool, Source } from "../../provider-tool.js";

/**
 * Maps each provider tool of a request to its wire form with `toWire`, after checking it belongs to
 * `family`; a tool of another provider, or one `toWire` does not know (it returns undefined), is a
 * `ProviderToolUnsupportedError` (thrown before anything is sent).
 */
export function wireProviderTools<T>(
  tools: readonly ProviderTool[] | undefined,
  family: string,
  api: string,
  toWire: (tool: ProviderTool) => T | undefined,
): T[] {
  const result: T[] = [];
  for (const tool of tools ?? []) {
    const wire = tool.provider === family ? toWire(tool) : undefined;
    if (wire === undefined) {
      throw new ProviderToolUnsupportedError({
        toolId: tool.id,
        api,
        ...(tool.provider === family ? { reason: "this API does not host it" } : {}),
      });
    }
    result.push(wire);
  }
  return result;
}

/** A record's string field, or undefined. */
export function text(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" ? field : undefined;
}

/** A record's list field, or an empty list. */
export function list(value: unknown, key: string): unknown[] {
  if (typeof value !== "object" || value === null) return [];
  const field = (value as Record<string, unknown>)[key];
  return Array.isArray(field) ? field : [];
}

/** A URL source, with the title and cited text when present. */
export function urlSource(url: string, title?: string, citedText?: string): Source {
  return {
    type: "url",
    url,
    ...(title === undefined || title === "" ? {} : { title }),
    ...(citedText === undefined || citedText === "" ? {} : { citedText }),
  };
}

/** A file source, with the file name when present. */
export function fileSource(fileId: string, filename?: string, citedText?: string): Source {
  return {
    type: "file",
    fileId,
    ...(filename === undefined || filename === "" ? {} : { filename }),
    ...(citedText === undefined || citedText === "" ? {} : { citedText }),
  };
}

/** Copies an options object's defined keys under wire names (`rename[key]`), skipping undefined values. */
export function renamed(
  args: Readonly<Record<string, unknown>>,
  rename: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const name = rename[key];
    if (name !== undefined && value !== undefined) result[name] = value;
  }
  return result;
}

/** Sources as `source` response parts, in order. */
export function sourceParts(sources: readonly Source[]): ResponsePart[] {
  return sources.map((source) => ({ type: "source", source }));
}
