import type { createParser as CreateParser, EventSourceMessage } from "eventsource-parser";

/**
 * Server-sent events from the bytes of a body, one read at a time: UTF-8 decoding (a character
 * split across reads is joined), line endings, then eventsource-parser. Lines may end in LF, CRLF
 * or a bare CR, as the SSE standard allows, and may change from line to line; each event is handed
 * over by the read that completed its blank line, wherever the body was cut into reads. An event
 * still open when the body ends is dropped (`end` returns only what the last bytes completed).
 *
 * @example
 * const { createParser } = await import("eventsource-parser");
 * const decoder = createSseDecoder(createParser);
 * decoder.push(new TextEncoder().encode("data: a\r\rdata: b\r")); // [{ data: "a", ... }]
 * decoder.end();                                                  // [] ("b" has no blank line)
 */
export interface SseDecoder {
  /** The events the bytes of one read completed, in order (often none). */
  push(bytes: Uint8Array): EventSourceMessage[];
  /** The events completed by the end of the body (the decoder's held bytes included). */
  end(): EventSourceMessage[];
}

export function createSseDecoder(createParser: typeof CreateParser): SseDecoder {
  const decoder = new TextDecoder();
  // eventsource-parser holds a CR that ends its input back, waiting for a possible LF: the last
  // event of a body in bare-CR lines would never complete. It is given LF-only text instead.
  const normalize = lineEndingNormalizer();
  let pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const take = (text: string): EventSourceMessage[] => {
    parser.feed(normalize(text));
    if (pending.length === 0) return pending;
    const events = pending;
    pending = [];
    return events;
  };
  return {
    push: (bytes) => take(decoder.decode(bytes, { stream: true })),
    end: () => take(decoder.decode()),
  };
}

/**
 * Rewrites the three line ends of SSE (LF, CRLF, bare CR) to LF, one chunk of decoded text at a
 * time. A CR that ends a chunk is a line end at once, never held back for an LF that may not come
 * (the body may end there, or the next bytes may be long in coming); an LF that opens the next
 * chunk is then its pair and is dropped.
 *
 * @example
 * const normalize = lineEndingNormalizer();
 * normalize("data: a\r"); // "data: a\n"
 * normalize("\n\r");      // "\n": the LF completed the CRLF, the CR is the blank line
 */
export function lineEndingNormalizer(): (text: string) => string {
  let afterCR = false;
  return (text) => {
    if (text === "") return text;
    const skipLF = afterCR && text.charCodeAt(0) === LF;
    afterCR = text.charCodeAt(text.length - 1) === CR;
    const rest = skipLF ? text.slice(1) : text;
    return rest.indexOf("\r") === -1 ? rest : rest.replace(crOrCrlf, "\n");
  };
}

const LF = 10;
const CR = 13;
const crOrCrlf = /\r\n?/g;
