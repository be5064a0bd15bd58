import type { ModelResponse } from "../models/model.js";
import type { Source } from "../models/provider-tool.js";
import type { RunState } from "./run-state.js";

/**
 * Records what the provider's own tools did within an answer, in the answer's order, right after its
 * `model_response`: each `provider_tool_call` and `provider_tool_result`, then one `provider_sources`
 * with the sources its text cites. Bookkeeping: none of it reaches the model's history again.
 */
export function recordProviderToolParts<D extends object, O>(
  state: RunState<D, O>,
  response: ModelResponse,
  model: string,
): void {
  const sources: Source[] = [];
  for (const part of response.content) {
    switch (part.type) {
      case "provider-tool-call":
        state.record("provider_tool_call", {
          model,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input ?? null,
        });
        break;
      case "provider-tool-result":
        state.record("provider_tool_result", {
          model,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          result: part.result ?? null,
          isError: part.isError,
          ...(part.sources === undefined || part.sources.length === 0 ? {} : { sources: part.sources }),
        });
        break;
      case "source":
        sources.push(part.source);
        break;
      default:
        break; // text, reasoning and tool calls go into the assistant message
    }
  }
  if (sources.length > 0) state.record("provider_sources", { model, sources });
}
