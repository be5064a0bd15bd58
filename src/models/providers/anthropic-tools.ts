import { type ProviderTool, providerTool } from "../provider-tool.js";
import type { ApproximateLocation } from "./openai-tools.js";

/** Options of Anthropic's web search server tool. */
export interface AnthropicWebSearchOptions {
  /** At most this many searches per request. */
  readonly maxUses?: number;
  /** Only these domains (not with `blockedDomains`). */
  readonly allowedDomains?: readonly string[];
  readonly blockedDomains?: readonly string[];
  readonly userLocation?: ApproximateLocation;
}

/**
 * Anthropic's server tools, run by Anthropic within an answer. Put them in an agent's `tools`
 * beside function tools; their calls, results and the text's citations are recorded as
 * `provider_tool_call`, `provider_tool_result` and `provider_sources` events.
 *
 * @example
 * const agent = new Agent({ model: "anthropic:claude-sonnet-4-5", tools: [anthropicTools.webSearch({ maxUses: 3 })] });
 */
export const anthropicTools = {
  /**
   * Web search (`web_search_20250305`).
   *
   * @example
   * anthropicTools.webSearch({ maxUses: 3, allowedDomains: ["weather.example"] });
   */
  webSearch(options: AnthropicWebSearchOptions = {}): ProviderTool {
    return providerTool("anthropic", "web_search", { ...options });
  },
  /**
   * Code execution (`code_execution_20250825`: bash and file editing in a sandbox); requests that
   * carry it send the beta header `anthropic-beta: code-execution-2025-08-25`.
   *
   * @example
   * anthropicTools.codeExecution();
   */
  codeExecution(): ProviderTool {
    return providerTool("anthropic", "code_execution");
  },
} as const;
