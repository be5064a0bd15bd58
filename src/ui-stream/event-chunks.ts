import type { EventOf } from "../session/events.js";
import { errorText } from "./nested-approvals.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

/**
 * The chunk a `tool_result` becomes: denied, an error, or the output — a result with content parts
 * (images, files) reaches the page as `{ result, content }`.
 */
export function toolResultChunk(event: EventOf<"tool_result">, denied: ReadonlySet<string>): UIMessageChunk {
  const { toolCallId, result, isError, content } = event.data;
  if (denied.has(toolCallId)) return { type: "tool-output-denied", toolCallId };
  if (isError) return { type: "tool-output-error", toolCallId, errorText: errorText(result) };
  return { type: "tool-output-available", toolCallId, output: content === undefined ? result : { result, content } };
}

/** The `data-nous-context-update` chunk of a tool's context update (none for a session's initial state). */
export function contextUpdateChunk(event: EventOf<"context_update">): UIMessageChunk | undefined {
  if (event.data.origin === "initial") return undefined;
  const { toolCallId, operations } = event.data;
  return {
    type: "data-nous-context-update",
    id: `ctx-${event.seq}`,
    data: { seq: event.seq, ...(toolCallId === undefined ? {} : { toolCallId }), operations },
  };
}
