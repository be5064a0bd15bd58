import type { FinishReason, ModelResponse, ModelStreamPart, ModelUsage, ResponsePart } from "./model.js";

/** What a test model answers in one turn, written for humans. */
export interface ScriptedResponse {
  text?: string;
  reasoning?: string;
  /** `args` may be a value (sent as JSON) or a string (sent as-is, so invalid JSON can be tested). */
  toolCalls?: readonly { id?: string; name: string; args?: unknown }[];
  usage?: ModelUsage;
  finishReason?: FinishReason;
}

/** Turns a scripted response into a model response. Tool-call ids default to `call_<turn>_<index>`. */
export function toModelResponse(scripted: ScriptedResponse, turn: number, modelId: string): ModelResponse {
  const content: ResponsePart[] = [];
  if (scripted.reasoning) content.push({ type: "reasoning", text: scripted.reasoning });
  if (scripted.text) content.push({ type: "text", text: scripted.text });
  (scripted.toolCalls ?? []).forEach((call, index) => {
    content.push({
      type: "tool-call",
      toolCallId: call.id ?? `call_${turn}_${index}`,
      toolName: call.name,
      argsText: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
    });
  });
  const hasCalls = (scripted.toolCalls?.length ?? 0) > 0;
  const outputTokens = Math.max(1, Math.ceil(((scripted.text?.length ?? 0) + (scripted.reasoning?.length ?? 0)) / 4));
  return {
    content,
    usage: scripted.usage ?? { inputTokens: 10, outputTokens, totalTokens: 10 + outputTokens },
    finishReason: scripted.finishReason ?? (hasCalls ? "tool-calls" : "stop"),
    modelId,
  };
}

/** Splits text into pieces of a few characters, keeping surrogate pairs whole. */
export function chunkText(text: string, size = 8): string[] {
  const characters = Array.from(text);
  const chunks: string[] = [];
  for (let index = 0; index < characters.length; index += size)
    chunks.push(characters.slice(index, index + size).join(""));
  return chunks;
}

/** Streams a response the way providers do: reasoning and text deltas, tool calls in fragments, then finish. */
export function* streamResponse(response: ModelResponse): Generator<ModelStreamPart> {
  for (const part of response.content) {
    switch (part.type) {
      case "reasoning":
        for (const text of chunkText(part.text)) yield { type: "reasoning-delta", text };
        break;
      case "text":
        for (const text of chunkText(part.text)) yield { type: "text-delta", text };
        break;
      case "tool-call":
        yield { type: "tool-call-start", toolCallId: part.toolCallId, toolName: part.toolName };
        for (const argsTextDelta of chunkText(part.argsText, 5)) {
          yield { type: "tool-call-delta", toolCallId: part.toolCallId, argsTextDelta };
        }
        yield { type: "tool-call-end", toolCallId: part.toolCallId };
        break;
      case "provider-tool-call":
      case "provider-tool-result":
      case "source":
        break; // no deltas: they arrive with the finished response
      default: {
        const unhandled: never = part;
        throw new TypeError(`unknown part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  yield { type: "finish", response };
}
