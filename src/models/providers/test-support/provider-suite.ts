import { getEventListeners } from "node:events";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { NousError } from "../../../errors/nous-error.js";
import { ProviderError, StreamTruncatedError } from "../../../errors/provider-error.js";
import type { Model } from "../../model.js";
import { type DialectFixture, type Scenario, scenarioExpectations } from "./dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./fake-server.js";
import {
  canonicalParts,
  checkStreamCoherent,
  collectStream,
  expectedErrors,
  mutate,
  normalizeResponse,
  seededRandom,
  suiteErrorStatuses,
  suiteHistory,
  suiteRequest,
} from "./suite-support.js";
import { createWireFetch, deliver, splitBytes, type WireDelivery } from "./wire-fetch.js";

/** How many randomly mutated streams (and JSON bodies) each dialect is fed. */
export const MUTATED_STREAMS = 1000;
export const MUTATED_BODIES = 200;

/**
 * The behavioural suite every provider dialect must pass: scenarios over real loopback HTTP (JSON
 * and SSE), the HTTP error mapping, aborts, and byte-level robustness (every split offset, every
 * truncation offset, seeded random mutations) through an in-memory fetch. A dialect's test file is
 * one call.
 *
 * @example
 * // openai-chat.test.ts
 * runProviderSuite(openAIChatFixture);
 */
export function runProviderSuite(fixture: DialectFixture): void {
  describe(`provider suite: ${fixture.name}`, () => {
    const apiKey = "sk-suite-key";
    let server: FakeServer;
    beforeAll(async () => {
      server = await startFakeServer();
    });
    afterAll(async () => {
      await server.close();
    });
    beforeEach(() => server.reset());
    const httpModel = (): Model => fixture.createModel({ baseURL: server.url, apiKey });

    describe("scenarios over HTTP", () => {
      for (const scenario of fixture.scenarios) {
        const expected = scenarioExpectations[scenario];
        it(`${scenario}: doGenerate gives the normalized answer`, async () => {
          server.enqueue(fixture.reply(scenario, false));
          const response = await httpModel().doGenerate(suiteRequest(scenario));
          expect(normalizeResponse(response)).toEqual(expected);
          expect(server.requests).toHaveLength(1);
          fixture.checkRequest?.(scenario, server.requests[0]!);
        });
        it(`${scenario}: doStream deltas add up to the answer, one finish last`, async () => {
          server.enqueue({ reply: fixture.reply(scenario, true), chunkSizes: chunkPattern, chunkDelayMs: 1 });
          const { parts, error } = await collectStream(httpModel().doStream(suiteRequest(scenario)));
          expect(error).toBeUndefined();
          expect(normalizeResponse(checkStreamCoherent(parts))).toEqual(expected);
          fixture.checkRequest?.(scenario, server.requests[0]!);
        });
        it(`${scenario}: a connection cut mid-body is StreamTruncatedError with no finish`, async () => {
          const reply = fixture.reply(scenario, true);
          server.enqueue({ reply, cutAfterBytes: Math.floor(Buffer.byteLength(reply.body) / 2) });
          const { parts, error } = await collectStream(httpModel().doStream(suiteRequest(scenario)));
          expect(error).toBeInstanceOf(StreamTruncatedError);
          expect(parts.some((part) => part.type === "finish")).toBe(false);
        });
      }
      it("sends a full history (system, image, assistant tool call, tool result)", async () => {
        server.enqueue(fixture.reply("text", false));
        const request = { ...suiteRequest("text"), messages: suiteHistory };
        const response = await httpModel().doGenerate(request);
        expect(normalizeResponse(response).text).toBe(scenarioExpectations.text.text);
        expect(typeof server.requests[0]?.body).toBe("object");
      });
    });

    describe("HTTP errors become typed provider errors", () => {
      for (const status of suiteErrorStatuses) {
        for (const mode of ["doGenerate", "doStream"] as const) {
          it(`${status} via ${mode}`, async () => {
            server.enqueue(fixture.errorReply(status));
            const model = httpModel();
            const error = await failureOf(model, mode);
            const rule = expectedErrors[status];
            expect(
              rule.classes.some((errorClass) => error instanceof errorClass),
              String(error),
            ).toBe(true);
            expect(error).toMatchObject({ provider: model.provider, status, retryable: rule.retryable });
          });
        }
      }
      const retryCases: [number, Record<string, string> | undefined, number | undefined][] = [
        [429, { "retry-after": "2" }, 2000],
        [429, { "retry-after-ms": "1500" }, 1500],
        [429, { "retry-after": "1", "retry-after-ms": "250" }, 250],
        [503, { "retry-after": "3" }, 3000],
        [529, { "retry-after-ms": "40" }, 40],
        [429, undefined, undefined],
      ];
      for (const [status, headers, retryAfterMs] of retryCases) {
        it(`${status} with ${JSON.stringify(headers ?? {})} → retryAfterMs ${retryAfterMs}`, async () => {
          server.enqueue(fixture.errorReply(status, headers));
          const error = await failureOf(httpModel(), "doGenerate");
          expect(error.retryAfterMs).toBe(retryAfterMs);
        });
      }
    });

    describe("aborts", () => {
      it("an abort mid-stream rejects promptly with the signal's reason and closes the socket", async () => {
        const reply = fixture.reply(fixture.scenarios[0] ?? "text", true);
        const half = Math.floor(Buffer.byteLength(reply.body) / 2);
        server.enqueue({ reply, hangAfterBytes: half });
        const controller = new AbortController();
        const reading = collectStream(httpModel().doStream(suiteRequest("text", controller.signal)));
        await server.waitForBytesSent(half);
        await new Promise((resolve) => setTimeout(resolve, 20));
        const reason = new Error("user pressed stop");
        controller.abort(reason);
        const { parts, error } = await reading;
        expect(error).toBe(reason);
        expect(parts.some((part) => part.type === "finish")).toBe(false);
        await server.waitForIdle(2000);
      });
      it("an abort before the answer's headers rejects with the reason and closes the socket", async () => {
        server.enqueue({ reply: fixture.reply("text", false), hangBeforeHeaders: true });
        const controller = new AbortController();
        const pending = httpModel().doGenerate(suiteRequest("text", controller.signal));
        while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        const reason = new Error("deadline");
        controller.abort(reason);
        await expect(pending).rejects.toBe(reason);
        await server.waitForIdle(2000);
      });
      it("an already aborted signal rejects with its reason", async () => {
        const reason = new Error("already gone");
        const signal = AbortSignal.abort(reason);
        await expect(httpModel().doGenerate(suiteRequest("text", signal))).rejects.toBe(reason);
        const { error } = await collectStream(httpModel().doStream(suiteRequest("text", signal)));
        expect(error).toBe(reason);
      });
      it("leaves no abort listener behind on the caller's signal after many calls", async () => {
        const controller = new AbortController();
        const model = httpModel();
        for (let call = 0; call < 12; call++) {
          server.enqueue(fixture.reply("text", false), fixture.reply("text", true));
          await model.doGenerate(suiteRequest("text", controller.signal));
          const { error } = await collectStream(model.doStream(suiteRequest("text", controller.signal)));
          expect(error).toBeUndefined();
        }
        expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      });
    });

    describe("byte-level robustness (in-memory fetch)", () => {
      let respond: (body: unknown) => WireDelivery = () => ({ status: 599, chunks: [] });
      const wire = createWireFetch((request) => respond(request.body));
      let model: Model;
      beforeAll(() => {
        // Also stubbed globally so a fixture that forgets to pass `fetch` still runs in memory.
        vi.stubGlobal("fetch", wire.fetch);
        model = fixture.createModel({ baseURL: "http://wire.invalid", apiKey, fetch: wire.fetch });
      });
      afterAll(() => {
        vi.unstubAllGlobals();
      });
      let unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      beforeEach(() => {
        unhandled = [];
        process.on("unhandledRejection", onUnhandled);
      });
      afterEach(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        process.off("unhandledRejection", onUnhandled);
        expect(unhandled).toEqual([]);
      });
      const streamOf = async (delivery: WireDelivery, scenario: Scenario) => {
        respond = () => delivery;
        return collectStream(model.doStream(suiteRequest(scenario)));
      };

      for (const scenario of fixture.scenarios) {
        it(`${scenario}: every two-chunk split gives the identical part sequence`, async () => {
          const reply = fixture.reply(scenario, true);
          const whole = await streamOf(deliver(reply), scenario);
          expect(whole.error).toBeUndefined();
          expect(normalizeResponse(checkStreamCoherent(whole.parts))).toEqual(scenarioExpectations[scenario]);
          const reference = canonicalParts(whole.parts);
          const length = Buffer.byteLength(reply.body);
          const differing: number[] = [];
          for (let offset = 1; offset < length; offset++) {
            const split = await streamOf(deliver(reply, [offset]), scenario);
            if (split.error !== undefined || canonicalParts(split.parts) !== reference) differing.push(offset);
          }
          expect(differing, `split offsets that changed the stream: ${differing.slice(0, 10)}`).toEqual([]);
        });

        it(`${scenario}: a body truncated at any offset never finishes with cut content`, async () => {
          const reply = fixture.reply(scenario, true);
          const bytes = Buffer.from(reply.body, "utf8");
          const whole = await streamOf(deliver(reply), scenario);
          const reference = canonicalParts(whole.parts);
          const bad: string[] = [];
          for (let offset = 0; offset < bytes.length; offset++) {
            const cut = { status: reply.status, headers: reply.headers, chunks: [bytes.subarray(0, offset)] };
            const { parts, error } = await streamOf(cut, scenario);
            if (error === undefined) {
              if (canonicalParts(parts) !== reference) bad.push(`${offset}: finished with different content`);
            } else if (!(error instanceof StreamTruncatedError)) {
              bad.push(`${offset}: ${String(error)}`);
            } else if (parts.some((part) => part.type === "finish")) {
              bad.push(`${offset}: threw after a finish part`);
            }
          }
          expect(bad.slice(0, 10)).toEqual([]);
        });
      }

      it(`${MUTATED_STREAMS} randomly mutated streams: no crash, every failure a typed NousError`, async () => {
        const random = seededRandom(0x5eed);
        const problems: string[] = [];
        for (let round = 0; round < MUTATED_STREAMS; round++) {
          const scenario = fixture.scenarios[round % fixture.scenarios.length] ?? "text";
          const reply = fixture.reply(scenario, true);
          const { bytes, applied } = mutate(Buffer.from(reply.body, "utf8"), random);
          const splits = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * bytes.length));
          const delivery = { status: reply.status, headers: reply.headers, chunks: splitBytes(bytes, splits) };
          const { parts, error } = await streamOf(delivery, scenario);
          if (error !== undefined && !NousError.isInstance(error)) {
            problems.push(`round ${round} ${applied.join(",")}: untyped ${String(error)}`);
          } else if (error === undefined) {
            const finishes = parts.filter((part) => part.type === "finish").length;
            if (finishes !== 1 || parts.at(-1)?.type !== "finish")
              problems.push(`round ${round}: ${finishes} finishes`);
          }
        }
        expect(problems.slice(0, 10)).toEqual([]);
      });

      it(`${MUTATED_BODIES} randomly mutated JSON bodies: no crash, every failure a typed NousError`, async () => {
        const random = seededRandom(0xb0d7);
        const problems: string[] = [];
        for (let round = 0; round < MUTATED_BODIES; round++) {
          const scenario = fixture.scenarios[round % fixture.scenarios.length] ?? "text";
          const reply = fixture.reply(scenario, false);
          const { bytes, applied } = mutate(Buffer.from(reply.body, "utf8"), random);
          respond = () => ({ status: reply.status, headers: reply.headers, chunks: [bytes] });
          try {
            await model.doGenerate(suiteRequest(scenario));
          } catch (error) {
            if (!NousError.isInstance(error)) problems.push(`round ${round} ${applied.join(",")}: ${String(error)}`);
          }
        }
        expect(problems.slice(0, 10)).toEqual([]);
      });
    });
  });
}

const chunkPattern = Array.from({ length: 64 }, (_, index) => [1, 7, 3, 64, 13, 2][index % 6] ?? 1);

async function failureOf(model: Model, mode: "doGenerate" | "doStream"): Promise<ProviderError> {
  let error: unknown;
  if (mode === "doGenerate") {
    error = await model.doGenerate(suiteRequest("text")).then(
      () => undefined,
      (caught: unknown) => caught,
    );
  } else {
    const result = await collectStream(model.doStream(suiteRequest("text")));
    if (result.parts.length > 0) throw new Error(`an HTTP error yielded parts: ${JSON.stringify(result.parts)}`);
    error = result.error;
  }
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}
