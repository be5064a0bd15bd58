import { type ProviderTool, providerTool } from "../provider-tool.js";

/**
 * Gemini's built-in tools, run by Google within an answer. Put them in an agent's `tools` beside
 * function tools; the searches (from `groundingMetadata`), code runs and sources are recorded as
 * `provider_tool_call`, `provider_tool_result` and `provider_sources` events.
 *
 * @example
 * const agent = new Agent({ model: "gemini:gemini-2.5-flash", tools: [geminiTools.googleSearch()] });
 */
export const geminiTools = {
  /**
   * Grounding with Google Search (`{ googleSearch: {} }`).
   *
   * @example
   * geminiTools.googleSearch();
   */
  googleSearch(): ProviderTool {
    return providerTool("gemini", "google_search");
  },
  /**
   * Code execution (`{ codeExecution: {} }`): the model writes and runs Python.
   *
   * @example
   * geminiTools.codeExecution();
   */
  codeExecution(): ProviderTool {
    return providerTool("gemini", "code_execution");
  },
  /**
   * URL context (`{ urlContext: {} }`): the model reads the pages whose URLs the prompt gives.
   *
   * @example
   * geminiTools.urlContext();
   */
  urlContext(): ProviderTool {
    return providerTool("gemini", "url_context");
  },
} as const;
