import type { AssistantPart } from "../session/messages.js";
import type { ResponsePart } from "./model.js";

/** A recorded assistant part as the model produced it (tool-call arguments back to JSON text). */
export function toResponsePart(part: AssistantPart): ResponsePart {
  if (part.type !== "tool-call") return part;
  return {
    type: "tool-call",
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    argsText: typeof part.args === "string" ? part.args : JSON.stringify(part.args),
  };
}
