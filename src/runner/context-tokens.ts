import type { ModelRequest } from "../models/model.js";
import { isEventOf, type SessionEvent } from "../session/events.js";
import { projectMessage } from "../session/projections.js";
import type { SessionLog } from "../session/session-log.js";

/** Characters per token of the estimate: about right for English text and JSON with most tokenizers. */
const CHARS_PER_TOKEN = 4;

/**
 * An estimate of the tokens a request takes: the characters of its instructions plus those of the
 * JSON of its messages and tool definitions, divided by 4. No tokenizer is loaded: it is about
 * right for English and JSON, under for some scripts (CJK), and over for inline images and files,
 * whose base64 a provider does not count as text.
 *
 * @example
 * estimateRequestTokens({ instructions: "Be brief.", messages, tools: [] }); // e.g. 1_250
 */
export function estimateRequestTokens(request: Pick<ModelRequest, "instructions" | "messages" | "tools">): number {
  const chars =
    (request.instructions?.length ?? 0) +
    JSON.stringify(request.messages).length +
    JSON.stringify(request.tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * The tokens the next request (`request`, assembled from `log`) will take: when the log's last
 * request for a step got a response with the provider's `inputTokens` (which Nous normalizes to
 * include cached tokens) and no compaction came since, that count plus an estimate of the messages
 * appended after it; otherwise `estimateRequestTokens(request)`. Reads the log back only to its last
 * request.
 */
export function nextRequestTokens(log: SessionLog, request: ModelRequest): number {
  let appendedChars = 0;
  let inputTokens: number | undefined;
  for (let index = log.length - 1; index >= 0; index--) {
    const event = log.at(index) as SessionEvent;
    if (isEventOf(event, "compaction")) break;
    if (isEventOf(event, "model_response") && event.data.purpose === undefined) {
      inputTokens = event.data.usage.inputTokens;
      continue;
    }
    if (isEventOf(event, "model_request") && event.data.purpose === undefined) {
      if (inputTokens === undefined) break;
      return inputTokens + Math.ceil(appendedChars / CHARS_PER_TOKEN);
    }
    const message = projectMessage(event);
    // One more character per message: the comma that joins it to the others in the JSON the estimate counts.
    if (message !== undefined) appendedChars += JSON.stringify(message).length + 1;
  }
  return estimateRequestTokens(request);
}
