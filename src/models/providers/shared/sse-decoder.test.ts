import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StreamTruncatedError } from "../../../errors/provider-error.js";
import { splitBytes } from "../test-support/wire-fetch.js";
import { readSse } from "./http.js";
import { createSseDecoder, lineEndingNormalizer } from "./sse-decoder.js";

/** Cuts text at the given offsets (sorted, deduplicated, out-of-range ones ignored). */
function cut(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets)].filter((at) => at > 0 && at < text.length).sort((a, b) => a - b);
  return [0, ...points].map((start, index) => text.slice(start, points[index] ?? text.length));
}

describe("lineEndingNormalizer", () => {
  it("rewrites CRLF and bare CR to LF, across every way of cutting the text", () => {
    const piece = fc.constantFrom("\r", "\n", "\r\n", "\n\r", "\r\r", "a", "data: x", "é", "");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(200), { maxLength: 12 }), (pieces, offsets) => {
        const text = pieces.join("");
        const normalize = lineEndingNormalizer();
        const out = cut(text, offsets)
          .map((chunk) => normalize(chunk))
          .join("");
        expect(out).toBe(text.replace(/\r\n?/g, "\n"));
      }),
      { numRuns: 2000 },
    );
  });

  it("ends a line at a CR that ends a chunk, and drops the LF that opens the next one", () => {
    const normalize = lineEndingNormalizer();
    expect(normalize("data: a\r")).toBe("data: a\n");
    expect(normalize("")).toBe(""); // an empty read (a split character) keeps the pending pair
    expect(normalize("\n")).toBe("");
    expect(normalize("\r")).toBe("\n");
    expect(normalize("x")).toBe("x");
  });
});

describe("createSseDecoder", () => {
  it("joins a character split across reads and hands each event to the read that completed it", async () => {
    const { createParser } = await import("eventsource-parser");
    const decoder = createSseDecoder(createParser);
    const bytes = Buffer.from("data: wörld\r\rdata: b\r");
    const split = bytes.indexOf(0xb6); // the second byte of "ö"
    expect(decoder.push(bytes.subarray(0, split))).toEqual([]);
    expect(decoder.push(bytes.subarray(split)).map((event) => event.data)).toEqual(["wörld"]);
    expect(decoder.push(Buffer.from("\n"))).toEqual([]); // completes the CRLF: not a blank line
    expect(decoder.end()).toEqual([]); // "b" never got its blank line
  });
});

function body(chunks: readonly Uint8Array[]): Response {
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

async function events(chunks: readonly Uint8Array[]): Promise<{ data: string[]; error?: unknown }> {
  const data: string[] = [];
  try {
    for await (const event of readSse(body(chunks), "test")) data.push(`${event.event ?? ""}|${event.data}`);
    return { data };
  } catch (error) {
    return { data, error };
  }
}

describe("readSse line endings", () => {
  const lf = 'event: a\ndata: {"n":1}\n\n: comment\ndata: two\ndata: lines\n\ndata: [DONE]\n\n';
  const expected = ['a|{"n":1}', "|two\nlines", "|[DONE]"];

  it("reads the last event of a body whose lines end in a bare CR", async () => {
    const cr = lf.replaceAll("\n", "\r");
    expect(await events([Buffer.from(cr)])).toEqual({ data: expected });
  });

  it("gives the same events for LF, CRLF and bare CR, split at every byte offset", async () => {
    for (const ending of ["\n", "\r\n", "\r"]) {
      const bytes = Buffer.from(lf.replaceAll("\n", ending));
      for (let offset = 0; offset < bytes.length; offset++) {
        const result = await events(splitBytes(bytes, [offset]));
        expect(result, `${JSON.stringify(ending)} split at ${offset}`).toEqual({ data: expected });
      }
    }
  });

  it("hands over an event completed by a CR at the end of a read before the next read arrives", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Only a safety valve, so that the broken behaviour fails instead of hanging: a correct reader
    // hands "first" over while the second read is still held at the gate.
    const valve = setTimeout(release, 2000);
    let sent = 0;
    let secondSent = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(Buffer.from("data: first\r\r"));
        else if (sent === 1) {
          await gate;
          secondSent = true;
          controller.enqueue(Buffer.from("\ndata: second\r\r"));
        } else controller.close();
        sent += 1;
      },
    });
    const reader = readSse(new Response(stream), "test")[Symbol.asyncIterator]();
    expect((await reader.next()).value?.data).toBe("first");
    expect(secondSent).toBe(false);
    release();
    clearTimeout(valve);
    expect((await reader.next()).value?.data).toBe("second");
    expect((await reader.next()).done).toBe(true);
  });

  it("drops an event with no blank line after it when the body ends, whatever the line ending", async () => {
    for (const tail of ["data: cut", "data: cut\n", "data: cut\r", "data: cut\r\n"]) {
      expect(await events([Buffer.from(`data: whole\r\r${tail}`)])).toEqual({ data: ["|whole"] });
    }
  });

  it("keeps the events read before a broken connection, then throws StreamTruncatedError", async () => {
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("socket hang up"));
        sent = true;
        controller.enqueue(Buffer.from("data: kept\r\r"));
      },
    });
    const data: string[] = [];
    const reading = (async () => {
      for await (const event of readSse(new Response(stream), "test")) data.push(event.data);
    })();
    await expect(reading).rejects.toBeInstanceOf(StreamTruncatedError);
    expect(data).toEqual(["kept"]);
  });
});
