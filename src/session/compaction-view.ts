import type { CompactionData } from "./events.js";
import type { Message } from "./messages.js";

/** The words that open a summary message, before the summary itself. */
export const SUMMARY_PREFIX = "Summary of the earlier conversation (compacted):\n\n";

/**
 * Messages with, for each, the seq of the event it stands for (a summary stands at the start of the
 * range it replaces). Parallel arrays, so a log's projection keeps one number per message.
 */
export interface MessageView {
  readonly messages: readonly Message[];
  readonly seqs: readonly number[];
}

/**
 * The model's view after a `compaction` event: the messages standing for events in its `replaces`
 * range (system messages excepted) give way to one user message holding the summary, at the place
 * of the first; the results of its `dropped` calls read `placeholder`. Pure: `view` is not touched.
 * O(messages).
 *
 * @example
 * applyCompaction(view, { strategy: "drop_tool_results", dropped: ["call_1"], placeholder: "[dropped]", tokensBefore: 900, tokensAfter: 300 });
 */
export function applyCompaction(view: MessageView, compaction: CompactionData): MessageView {
  const messages: Message[] = [];
  const seqs: number[] = [];
  switch (compaction.strategy) {
    case "summarize": {
      const [from, to] = compaction.replaces;
      let placed = false;
      view.messages.forEach((message, index) => {
        const seq = view.seqs[index] as number;
        if (seq >= from && seq <= to && message.role !== "system") {
          if (!placed) {
            messages.push(Object.freeze(summaryMessage(compaction.summary)));
            seqs.push(from);
            placed = true;
          }
          return;
        }
        messages.push(message);
        seqs.push(seq);
      });
      return { messages, seqs };
    }
    case "drop_tool_results": {
      const dropped = new Set(compaction.dropped);
      const messages = view.messages.map((message) =>
        message.role === "tool" && dropped.has(message.toolCallId)
          ? Object.freeze({ ...message, result: compaction.placeholder })
          : message,
      );
      return { messages, seqs: view.seqs };
    }
    default: {
      const unhandled: never = compaction;
      throw new TypeError(`unknown compaction ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The user message a summary is shown as (every provider takes a user message anywhere in a conversation). */
export function summaryMessage(summary: string): Message {
  return { role: "user", content: `${SUMMARY_PREFIX}${summary}` };
}
