import { UserError } from "./nous-error.js";

/**
 * A provider tool (`openaiTools.webSearch()`, `anthropicTools.codeExecution()`, ...) was given to a
 * model that cannot run it: a tool of another provider, or one the model's API does not host (OpenAI
 * Chat Completions hosts only web search). Raised before the request is sent, and never retried.
 *
 * @example
 * try { await agent.run("…") } catch (error) {
 *   if (error instanceof ProviderToolUnsupportedError) console.log(error.toolId, error.api); // "anthropic.web_search" "openai-responses"
 * }
 */
export class ProviderToolUnsupportedError extends UserError {
  readonly code = "provider_tool_unsupported";
  /** The tool's id, `<provider>.<tool>`. */
  readonly toolId: string;
  /** The wire format of the model it was given to (`openai-chat`, `anthropic`, ...). */
  readonly api: string;

  constructor(fields: { toolId: string; api: string; reason?: string }) {
    super({
      message: `provider tool "${fields.toolId}" cannot be sent over the ${fields.api} API${
        fields.reason ? `: ${fields.reason}` : ""
      }; give it to a model of its own provider`,
    });
    this.toolId = fields.toolId;
    this.api = fields.api;
  }
}
