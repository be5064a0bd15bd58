import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { anthropicFixture } from "../models/providers/test-support/anthropic.fixture.js";
import { type FakeServer, startFakeServer } from "../models/providers/test-support/fake-server.js";
import { forgetSecretsForTesting } from "../redaction/secret-registry.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";
import { OUTPUT_TOOL_NAME } from "./output-spec.js";

let server: FakeServer;
beforeAll(async () => {
  forgetSecretsForTesting();
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

async function outputEvents<O>(agent: Agent<Record<string, unknown>, O>): Promise<AgentStreamEvent<O>[]> {
  const events: AgentStreamEvent<O>[] = [];
  for await (const event of agent.stream("Answer.")) if (event.kind === "output") events.push(event);
  return events;
}

// A key too short to be a secret: no redaction holdback, so each delta shows as it arrives (with a
// registered secret, the partials follow the redacted stream; see structured-output-stream.test.ts).
const model = () => anthropicFixture.createModel({ baseURL: server.url, apiKey: "k" });

describe("partial structured output over a real wire format (Anthropic Messages SSE, local server)", () => {
  it("native mode: text deltas split mid-number and mid-string become partials, then the output", async () => {
    server.reset();
    // The stream's text deltas: {"answer":4 | 2,"unit":"µ | m"}
    server.enqueue({ reply: anthropicFixture.reply("structured-output", true), chunkSizes: [40, 40, 40, 40] });
    const agent = new Agent({
      model: model(),
      outputType: z.object({ answer: z.number(), unit: z.string() }),
      outputMode: "native",
    });
    expect(await outputEvents(agent)).toEqual([
      { kind: "output", type: "partial-output", partial: {} },
      { kind: "output", type: "partial-output", partial: { answer: 42, unit: "µ" } },
      { kind: "output", type: "partial-output", partial: { answer: 42, unit: "µm" } },
      { kind: "output", type: "output", output: { answer: 42, unit: "µm" } },
    ]);
  });

  it("tool mode: input_json_delta fragments of the final_result call become partials", async () => {
    server.reset();
    const reply = anthropicFixture.reply("tool-call", true);
    // The call's input_json_delta fragments: (empty) | {"ci | ty": "Par | is"}
    server.enqueue({ ...reply, body: reply.body.replaceAll("get_weather", OUTPUT_TOOL_NAME) });
    const agent = new Agent({ model: model(), outputType: z.object({ city: z.string() }), outputMode: "tool" });
    expect(await outputEvents(agent)).toEqual([
      { kind: "output", type: "partial-output", partial: {} },
      { kind: "output", type: "partial-output", partial: { city: "Par" } },
      { kind: "output", type: "partial-output", partial: { city: "Paris" } },
      { kind: "output", type: "output", output: { city: "Paris" } },
    ]);
  });
});
