/**
 * A tool the provider runs itself (a hosted web search, file search, code execution): the model
 * calls it and gets its result within one answer, and the runner only learns of it from the answer.
 * Built by the factories `openaiTools`, `anthropicTools` and `geminiTools`, and given in an agent's
 * `tools` beside function tools. `args` are JSON, the tool's options as the factory took them; each
 * provider maps the tool to its own wire form.
 */
export interface ProviderTool {
  readonly type: "provider";
  /** `<provider>.<tool>`, e.g. `openai.web_search`. */
  readonly id: string;
  /** The provider family that hosts it: `openai`, `anthropic` or `gemini`. */
  readonly provider: string;
  /** The name its calls carry in the log (`web_search`, `code_execution`). */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A source a provider tool found or an answer cites: a web page, or a file (a vector store file, a container file). */
export type Source =
  | {
      readonly type: "url";
      readonly url: string;
      readonly title?: string;
      /** The text of the source the answer quotes, when the provider says. */
      readonly citedText?: string;
    }
  | {
      readonly type: "file";
      readonly fileId: string;
      readonly filename?: string;
      readonly title?: string;
      readonly citedText?: string;
    };

/**
 * Whether a value is a provider tool (rather than a function tool).
 *
 * @example
 * isProviderTool(openaiTools.webSearch()); // true
 * isProviderTool(addTodo); // false
 */
export function isProviderTool(value: unknown): value is ProviderTool {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "provider" &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/** A provider tool with its options as JSON (undefined options dropped), frozen. */
export function providerTool(provider: string, name: string, args: Record<string, unknown> = {}): ProviderTool {
  const json = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
  return Object.freeze({ type: "provider", id: `${provider}.${name}`, provider, name, args: Object.freeze(json) });
}
