import { DefinitionError, ToolNameConflictError } from "../../../errors/user-errors.js";

/**
 * The `tools` of a request body: the agent's function tools (already in the dialect's wire form)
 * first, then the provider-defined tools of `providerOptions[provider].tools` (a hosted web search,
 * an MCP server, a custom tool), which are added, never a replacement. Two tools with one name
 * (a provider tool and a function tool, or two provider tools) are a `ToolNameConflictError`;
 * `namesOf` reads the names a provider tool declares (none for a hosted tool known by its type).
 * Undefined when there is no tool at all.
 *
 * @example
 * mergeTools({
 *   provider: "openai", functionTools: [{ type: "function", name: "get_time" }], functionNames: ["get_time"],
 *   providerTools: [{ type: "web_search" }], namesOf: (tool) => nameField(tool),
 * }); // [{ type: "function", name: "get_time" }, { type: "web_search" }]
 */
export function mergeTools(fields: {
  provider: string;
  functionTools: readonly unknown[];
  functionNames: readonly string[];
  /** `providerOptions[provider].tools` as given (undefined when absent). */
  providerTools: unknown;
  namesOf: (tool: unknown) => readonly string[];
}): unknown[] | undefined {
  const { provider, functionTools, providerTools } = fields;
  if (providerTools === undefined || providerTools === null) {
    return functionTools.length === 0 ? undefined : [...functionTools];
  }
  if (!Array.isArray(providerTools)) {
    throw new DefinitionError({ message: `${provider}: providerOptions.${provider}.tools must be a list of tools` });
  }
  const names = new Set(fields.functionNames);
  for (const tool of providerTools) {
    for (const name of fields.namesOf(tool)) {
      if (names.has(name)) throw new ToolNameConflictError({ provider, toolName: name });
      names.add(name);
    }
  }
  const merged = [...functionTools, ...providerTools];
  return merged.length === 0 ? undefined : merged;
}

/** The `name` a tool object declares, as a list (empty when it has none). */
export function nameField(tool: unknown): readonly string[] {
  const name = typeof tool === "object" && tool !== null ? (tool as { name?: unknown }).name : undefined;
  return typeof name === "string" ? [name] : [];
}
