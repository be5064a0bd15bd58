import { DefinitionError } from "../errors/user-errors.js";
import { isProviderTool, type ProviderTool } from "../models/provider-tool.js";
import type { AnyTool } from "./tool.js";

/** What an agent's `tools` list holds: function tools it runs, and provider tools the provider runs. */
export type AgentTool<D extends object = Record<string, unknown>> = AnyTool<D> | ProviderTool;

const providerToolsByList = new WeakMap<readonly unknown[], readonly ProviderTool[]>();

/** The provider tools of an agent's `tools` list, in order (one frozen list per list). */
export function providerToolsOf(tools: readonly unknown[] | undefined): readonly ProviderTool[] {
  if (tools === undefined) return [];
  let found = providerToolsByList.get(tools);
  if (found === undefined) {
    found = Object.freeze(tools.filter(isProviderTool));
    providerToolsByList.set(tools, found);
  }
  return found;
}

/**
 * The function tools of an agent's `tools` list, after checking its provider tools: two provider
 * tools of one id, or a provider tool named like a function tool, are a `DefinitionError` (the
 * model could not tell their calls apart).
 */
export function functionToolsOf<D extends object>(tools: readonly AgentTool<D>[]): AnyTool<D>[] {
  const functions = tools.filter((item): item is AnyTool<D> => !isProviderTool(item));
  const names = new Set(functions.map((item) => item.name));
  const ids = new Set<string>();
  for (const item of providerToolsOf(tools)) {
    if (ids.has(item.id)) throw new DefinitionError({ message: `Provider tool "${item.id}" is listed twice` });
    if (names.has(item.name)) {
      throw new DefinitionError({
        message: `Provider tool "${item.id}" has the name of the function tool "${item.name}": rename the function tool`,
      });
    }
    ids.add(item.id);
  }
  return functions;
}
