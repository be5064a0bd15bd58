import type { OutputStreamEvent } from "../runner/output-stream-event.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

/**
 * The UI chunk for a structured-output stream event: `data-partial-output` (one data part, id
 * `output`, replaced by each partial and at last by the validated output). Elements are not sent:
 * the partial holds them.
 *
 * @example
 * // in the page (AI SDK `useChat`): the message's part { type: "data-partial-output", data }
 * const output = message.parts.find((part) => part.type === "data-partial-output")?.data;
 */
export function partialOutputChunks(event: OutputStreamEvent): UIMessageChunk[] {
  switch (event.type) {
    case "partial-output":
      return [{ type: "data-partial-output", id: "output", data: event.partial }];
    case "output":
      return [{ type: "data-partial-output", id: "output", data: event.output }];
    case "output-element":
      return [];
    default: {
      const unknown: never = event;
      throw new Error(`Unknown output event ${JSON.stringify(unknown)}`);
    }
  }
}
