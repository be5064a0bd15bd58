import type { EventSourceMessage } from "eventsource-parser";
import { MalformedResponseError, StreamTruncatedError } from "../../errors/provider-error.js";
import type { ModelStreamPart } from "../model.js";
import { GeminiAssembly } from "./gemini-response.js";

const PROVIDER = "gemini";

/**
 * Turns the server-sent events of `streamGenerateContent?alt=sse` into stream parts. Each event's
 * data is one `GenerateContentResponse`; the answer is complete only if the last chunk carrying a
 * candidate has a `finishReason` (or the prompt was blocked), else the stream was cut off and is a
 * {@link StreamTruncatedError}. An error chunk becomes its typed error.
 */
export async function* streamGemini(
  events: AsyncIterable<EventSourceMessage>,
  generateId: () => string,
): AsyncGenerator<ModelStreamPart> {
  const assembly = new GeminiAssembly(generateId);
  for await (const event of events) {
    if (event.data.trim() === "") continue;
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      throw new MalformedResponseError({
        provider: PROVIDER,
        message: `a chunk is not JSON: ${event.data.slice(0, 200)}`,
      });
    }
    yield* assembly.addChunk(chunk);
  }
  if (!assembly.complete) {
    throw new StreamTruncatedError({ provider: PROVIDER, message: "the stream ended without a finishReason" });
  }
  yield { type: "finish", response: assembly.response() };
}
