import { type ProviderTool, providerTool } from "../provider-tool.js";

/** Where the user is, roughly, so a web search can favour local results. */
export interface ApproximateLocation {
  /** Two-letter ISO country code, e.g. `"FR"`. */
  readonly country?: string;
  readonly region?: string;
  readonly city?: string;
  /** IANA time zone, e.g. `"Europe/Paris"`. */
  readonly timezone?: string;
}

/** Options of OpenAI's hosted web search. */
export interface OpenAIWebSearchOptions {
  /** How much context the search gathers (cost and latency grow with it). */
  readonly searchContextSize?: "low" | "medium" | "high";
  readonly userLocation?: ApproximateLocation;
  /** Only these domains are searched (Responses API only). */
  readonly allowedDomains?: readonly string[];
}

/** Options of OpenAI's hosted file search over vector stores. */
export interface OpenAIFileSearchOptions {
  /** The vector stores to search (`vs_…`). */
  readonly vectorStoreIds: readonly string[];
  readonly maxNumResults?: number;
  /** An attribute filter, in OpenAI's wire form (`{ type: "eq", key, value }`, compound filters). */
  readonly filters?: Readonly<Record<string, unknown>>;
  readonly ranking?: { readonly ranker?: string; readonly scoreThreshold?: number };
}

/** Options of OpenAI's hosted code interpreter. */
export interface OpenAICodeInterpreterOptions {
  /** A container id (`cntr_…`) to run in; by default a new container is made (with `fileIds` in it). */
  readonly container?: string;
  readonly fileIds?: readonly string[];
}

/**
 * OpenAI's hosted tools, run by OpenAI within an answer (Responses API, `"openai:<model>"`). Put them
 * in an agent's `tools` beside function tools; their calls, results and sources are recorded as
 * `provider_tool_call`, `provider_tool_result` and `provider_sources` events.
 *
 * @example
 * const agent = new Agent({ model: "openai:gpt-5-mini", tools: [openaiTools.webSearch(), getTime] });
 */
export const openaiTools = {
  /**
   * Web search (`{ type: "web_search" }`); its sources are asked for (`include`). On Chat
   * Completions it is sent as `web_search_options` (search models only).
   *
   * @example
   * openaiTools.webSearch({ searchContextSize: "low", userLocation: { country: "FR", city: "Paris" } });
   */
  webSearch(options: OpenAIWebSearchOptions = {}): ProviderTool {
    return providerTool("openai", "web_search", { ...options });
  },
  /**
   * File search over vector stores (`{ type: "file_search" }`); its results are asked for (`include`).
   *
   * @example
   * openaiTools.fileSearch({ vectorStoreIds: ["vs_123"], maxNumResults: 5 });
   */
  fileSearch(options: OpenAIFileSearchOptions): ProviderTool {
    return providerTool("openai", "file_search", { ...options });
  },
  /**
   * The code interpreter (`{ type: "code_interpreter" }`): Python in a sandboxed container; its
   * outputs are asked for (`include`).
   *
   * @example
   * openaiTools.codeInterpreter({ fileIds: ["file_abc"] });
   */
  codeInterpreter(options: OpenAICodeInterpreterOptions = {}): ProviderTool {
    return providerTool("openai", "code_interpreter", { ...options });
  },
} as const;
