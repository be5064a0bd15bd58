/**
 * `rebuildRequest` stays exact across compactions: against each provider's wire-format server, the
 * bodies of the summarization calls and of the requests sent after a compaction (streaming and
 * not, over two runs of a SQLite session) equal what the log rebuilds, and every body passes the
 * provider's tool-pairing and role rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import { dropToolResults, SUMMARY_REQUEST, summarizeHistory } from "../../runner/compaction-policy.js";
import { SUMMARY_PREFIX } from "../../session/compaction-view.js";
import type { EventOf, SessionEvent } from "../../session/events.js";
import { recordedRequest } from "../../session/recorded-request.js";
import { SqliteStore } from "../../store/sqlite-store.js";
import { tool } from "../../tools/tool.js";
import { rebuildRequest } from "./rebuild-request.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import type { DialectFixture } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";
import { wirePairingProblems } from "./test-support/wire-pairing.js";

const fixtures: readonly DialectFixture[] = [
  openAIChatFixture,
  openAIResponsesFixture,
  anthropicFixture,
  geminiFixture,
];

const getWeather = tool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temp: 21, detail: "sunny ".repeat(20) }),
});

let server: FakeServer;
const sqlite = new SqliteStore({ path: ":memory:" });
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await sqlite.close();
});

async function run(agent: Agent, prompt: string, stream: boolean, sessionId: string): Promise<void> {
  if (!stream) {
    await agent.run(prompt, { sessionId, store: sqlite });
    return;
  }
  const events = agent.stream(prompt, { sessionId, store: sqlite });
  for await (const _ of events);
  await events.result;
}

const requestsOf = (log: readonly SessionEvent[]) =>
  log.filter((event): event is EventOf<"model_request"> => event.type === "model_request");

describe.each(fixtures)("compaction against the $name wire-format server", (fixture) => {
  describe.each([false, true])("stream: %s", (stream) => {
    it("summarizing: the summarization calls and the requests after them are rebuilt exactly", async () => {
      server.reset();
      server.enqueue(
        fixture.reply("tool-call", stream),
        fixture.reply("text", false), // the summary (a summarization call is never streamed)
        fixture.reply("text", stream),
        fixture.reply("text", false),
        fixture.reply("text", stream),
      );
      const agent = new Agent({
        model: fixture.createModel({ baseURL: server.url, apiKey: "sk-suite-key" }),
        instructions: "You answer about the weather.",
        tools: [getWeather],
        retry: false,
        // Any request with something to summarize is over this budget.
        compaction: summarizeHistory({ maxTokens: 1, keepTurns: 1, instructions: "Summarize briefly." }),
      });
      const sessionId = `sum-${fixture.name}-${stream}`;
      await run(agent, "Weather in Paris?", stream, sessionId);
      await run(agent, "And tomorrow?", stream, sessionId);
      const log = await sqlite.read(sessionId);

      const requests = requestsOf(log);
      expect(requests.map((event) => event.data.purpose ?? "step")).toEqual([
        "step",
        "compaction",
        "step",
        "compaction",
        "step",
      ]);
      expect(server.requests).toHaveLength(5);
      requests.forEach((event, index) => {
        expect(server.requests[index]?.body).toEqual(JSON.parse(JSON.stringify(rebuildRequest(log, event.seq))));
        expect(wirePairingProblems(recordedRequest(log, event.seq).request)).toEqual([]);
      });
      const summaryCall = recordedRequest(log, (requests[1] as SessionEvent).seq);
      expect(summaryCall.stream).toBe(false);
      expect(summaryCall.request.instructions).toBe("Summarize briefly.");
      expect(summaryCall.request.toolChoice).toBe("none");
      expect(summaryCall.request.messages.at(-1)).toEqual({ role: "user", content: SUMMARY_REQUEST });
      const after = recordedRequest(log, (requests[4] as SessionEvent).seq).request.messages;
      expect(after).toEqual([
        { role: "user", content: expect.stringContaining(SUMMARY_PREFIX) },
        { role: "user", content: "And tomorrow?" },
      ]);
      const compactions = log.filter((event) => event.type === "compaction");
      expect(compactions).toHaveLength(2);
    });

    it("dropping tool results: placeholders reach the wire and are rebuilt exactly", async () => {
      server.reset();
      server.enqueue(
        fixture.reply("tool-call", stream),
        fixture.reply("text", stream),
        fixture.reply("tool-call", stream),
        fixture.reply("text", stream),
      );
      const agent = new Agent({
        model: fixture.createModel({ baseURL: server.url, apiKey: "sk-suite-key" }),
        tools: [getWeather],
        retry: false,
        compaction: dropToolResults({ keep: 0, placeholder: "[dropped]" }),
      });
      const sessionId = `drop-${fixture.name}-${stream}`;
      await run(agent, "Weather in Paris?", stream, sessionId);
      await run(agent, "And in Rome?", stream, sessionId);
      const log = await sqlite.read(sessionId);
      const requests = requestsOf(log);
      expect(server.requests).toHaveLength(4);
      requests.forEach((event, index) => {
        expect(server.requests[index]?.body).toEqual(JSON.parse(JSON.stringify(rebuildRequest(log, event.seq))));
        expect(wirePairingProblems(recordedRequest(log, event.seq).request)).toEqual([]);
      });
      // The first result is seen by the model once, then dropped; the second is new in request 4.
      const results = (seq: number) =>
        recordedRequest(log, seq).request.messages.flatMap((message) =>
          message.role === "tool" ? [message.result] : [],
        );
      expect(results((requests[1] as SessionEvent).seq)).toEqual([expect.objectContaining({ city: "Paris" })]);
      expect(results((requests[3] as SessionEvent).seq)).toEqual([
        "[dropped]",
        expect.objectContaining({ city: "Paris" }),
      ]);
      expect(JSON.stringify(server.requests[3]?.body)).toContain("[dropped]");
    });
  });
});
