import { createParser, type EventSourceMessage } from "eventsource-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Model } from "../model.js";
import { createSseDecoder } from "./shared/sse-decoder.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import { serverToolsJson, serverToolsSse } from "./test-support/anthropic-server-tools.fixture.js";
import type { DialectFixture, Scenario, WireReply } from "./test-support/dialect-fixture.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";
import { canonicalParts, collectStream, seededRandom, suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, splitBytes, type WireDelivery } from "./test-support/wire-fetch.js";

/*
 * The SSE standard lets a line end in LF, CRLF or a bare CR. Every streamed scenario of every
 * dialect must read the same whichever ending the server uses and however the body is cut into
 * reads or cut off. The reference is always the LF body (whole, or cut at the same place).
 *
 * What runs, and what it costs (a few seconds a dialect):
 * - the SSE events of every fixture body in CRLF and CR, split at EVERY byte offset and cut off at
 *   every byte offset, against the LF body (the decoder alone: cheap enough to be exhaustive);
 * - each provider's parts and error, for CRLF and CR, split and cut at every offset next to a line
 *   end (before it, inside a CRLF, after it: where a line ending can straddle two reads) plus a
 *   seeded sample of 48 other offsets per body (each dialect's provider suite tries every LF split);
 * - fast-check, seeded: mixed endings line by line, up to 24 reads, an optional cut.
 */

/** Anthropic's stream with server tool blocks (a web search, then a client tool call), as one more scenario. */
const anthropicServerTools: DialectFixture = {
  ...anthropicFixture,
  name: "anthropic (server tools)",
  scenarios: ["tool-call"],
  reply: (_scenario, stream) => (stream ? serverToolsSse() : serverToolsJson()),
};

const fixtures: readonly DialectFixture[] = [
  openAIChatFixture,
  openAIResponsesFixture,
  anthropicFixture,
  anthropicServerTools,
  geminiFixture,
];

type Ending = "\n" | "\r\n" | "\r";
const endings: readonly Ending[] = ["\n", "\r\n", "\r"];
const endingNames: Record<Ending, string> = { "\n": "LF", "\r\n": "CRLF", "\r": "CR" };

/** The body with line `n` ended by `ending(n)` (the fixture's own endings are made LF first). */
function withEndings(body: string, ending: (line: number) => Ending): Buffer {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  return Buffer.from(lines.map((line, index) => (index === lines.length - 1 ? line : line + ending(index))).join(""));
}

/**
 * Where the LF body is cut when a body with other endings is cut at `offset`: each CRLF is one byte
 * longer than the LF it stands for, and a cut between its CR and LF has ended the line.
 */
function lfOffsetOf(bytes: Uint8Array, offset: number): number {
  let pairs = 0;
  for (let index = 1; index < offset; index++) if (bytes[index] === 0x0a && bytes[index - 1] === 0x0d) pairs++;
  return offset - pairs;
}

/** Offsets where a line ending can straddle two reads (before it, inside it, after it), then a seeded sample. */
function interestingOffsets(bytes: Uint8Array, seed: number): number[] {
  const offsets = new Set<number>();
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === 0x0a || bytes[index] === 0x0d) offsets.add(index).add(index + 1);
  }
  const random = seededRandom(seed);
  for (let sample = 0; sample < 48; sample++) offsets.add(Math.floor(random() * (bytes.length + 1)));
  return [...offsets].sort((a, b) => a - b);
}

function decode(chunks: readonly Uint8Array[]): string {
  const decoder = createSseDecoder(createParser);
  const events: EventSourceMessage[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return JSON.stringify(events);
}

/** What a stream read gives, comparable as a whole: the canonical parts and the error's class. */
interface Outcome {
  parts: string;
  error: string | undefined;
}

function reader(fixture: DialectFixture): (scenario: Scenario, delivery: WireDelivery) => Promise<Outcome> {
  let delivery: WireDelivery = { status: 599, chunks: [] };
  const wire = createWireFetch(() => delivery);
  const model: Model = fixture.createModel({ baseURL: "http://wire.invalid", apiKey: "sk-key", fetch: wire.fetch });
  return async (scenario, next) => {
    delivery = next;
    const { parts, error } = await collectStream(model.doStream(suiteRequest(scenario)));
    return { parts: canonicalParts(parts), error: error === undefined ? undefined : (error as Error).name };
  };
}

function delivery(reply: WireReply, bytes: Uint8Array, splitAt: readonly number[] = []): WireDelivery {
  return { status: reply.status, headers: reply.headers, chunks: splitBytes(bytes, splitAt) };
}

for (const fixture of fixtures) {
  describe(`${fixture.name}: streams read the same with LF, CRLF and bare-CR line endings`, () => {
    const read = reader(fixture);
    const bodies = (scenario: Scenario) => {
      const reply = fixture.reply(scenario, true);
      return { reply, lf: withEndings(reply.body, () => "\n") };
    };

    it("SSE events: every scenario, CRLF and CR, split at every byte offset and cut off at every byte offset", () => {
      const differing: string[] = [];
      for (const scenario of fixture.scenarios) {
        const { reply, lf } = bodies(scenario);
        const whole = decode([lf]);
        const lfCut = Array.from({ length: lf.length + 1 }, (_, offset) => decode([lf.subarray(0, offset)]));
        for (const ending of ["\r\n", "\r"] as const) {
          const bytes = withEndings(reply.body, () => ending);
          const name = `${scenario} ${endingNames[ending]}`;
          for (let offset = 0; offset <= bytes.length; offset++) {
            if (decode(splitBytes(bytes, [offset])) !== whole) differing.push(`${name} split at ${offset}`);
            if (decode([bytes.subarray(0, offset)]) !== lfCut[lfOffsetOf(bytes, offset)]) {
              differing.push(`${name} cut at ${offset}`);
            }
          }
        }
      }
      expect(differing.slice(0, 10)).toEqual([]);
    });

    it("parts: every scenario, CRLF and CR, split next to every line end and at sampled offsets", async () => {
      const differing: string[] = [];
      for (const scenario of fixture.scenarios) {
        const { reply, lf } = bodies(scenario);
        const reference = await read(scenario, delivery(reply, lf));
        expect(reference.error, `${scenario}: the LF body must complete`).toBeUndefined();
        for (const ending of ["\r\n", "\r"] as const) {
          const bytes = withEndings(reply.body, () => ending);
          for (const offset of interestingOffsets(bytes, bytes.length)) {
            const outcome = await read(scenario, delivery(reply, bytes, [offset]));
            if (outcome.parts !== reference.parts || outcome.error !== undefined) {
              differing.push(
                `${scenario} ${endingNames[ending]} split at ${offset}: ${outcome.error ?? "other parts"}`,
              );
            }
          }
        }
      }
      expect(differing.slice(0, 10)).toEqual([]);
    });

    it("parts: every scenario, CRLF and CR, cut off next to every line end and at sampled offsets", async () => {
      const differing: string[] = [];
      for (const scenario of fixture.scenarios) {
        const { reply, lf } = bodies(scenario);
        for (const ending of ["\r\n", "\r"] as const) {
          const bytes = withEndings(reply.body, () => ending);
          for (const offset of interestingOffsets(bytes, bytes.length + 1)) {
            const expected = await read(scenario, delivery(reply, lf.subarray(0, lfOffsetOf(bytes, offset))));
            const outcome = await read(scenario, delivery(reply, bytes.subarray(0, offset)));
            if (outcome.parts !== expected.parts || outcome.error !== expected.error) {
              differing.push(
                `${scenario} ${endingNames[ending]} cut at ${offset}: ${outcome.error} vs ${expected.error}`,
              );
            }
          }
        }
      }
      expect(differing.slice(0, 10)).toEqual([]);
    });

    it("parts, property: mixed line endings, many reads, an optional cut", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...fixture.scenarios),
          fc.array(fc.constantFrom(...endings), { minLength: 1, maxLength: 64 }),
          fc.array(fc.nat(4000), { maxLength: 24 }),
          fc.option(fc.nat(4000), { nil: undefined }),
          async (scenario, choices, splits, cutAt) => {
            const { reply, lf } = bodies(scenario);
            // A CR followed by an LF-ended blank line would read as one CRLF: that pair is written CR CR.
            const chosen: Ending[] = [];
            const bytes = withEndings(reply.body, (line) => {
              const choice = choices[line % choices.length] ?? "\n";
              chosen[line] = chosen[line - 1] === "\r" && choice === "\n" ? "\r" : choice;
              return chosen[line] ?? "\n";
            });
            const offset = cutAt === undefined ? bytes.length : cutAt % (bytes.length + 1);
            const expected = await read(scenario, delivery(reply, lf.subarray(0, lfOffsetOf(bytes, offset))));
            const outcome = await read(scenario, delivery(reply, bytes.subarray(0, offset), splits));
            expect(outcome).toEqual(expected);
          },
        ),
        { numRuns: 200, seed: 0x11e5 },
      );
    });
  });
}
