import { type UIMessage as AiUIMessage, readUIMessageStream } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { AgentStreamEvent } from "../runner/agent-stream-event.js";
import { toUIMessageStream } from "./to-ui-message-stream.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";
import { UIMessageReducer } from "./ui-message-reducer.js";

async function readAll<T>(stream: ReadableStream<T> | AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream as AsyncIterable<T>) items.push(item);
  return items;
}

describe("partial structured output in the UI message stream", () => {
  it("each partial, then the output, goes out as one data-partial-output part (id output) that AI SDK keeps updated", async () => {
    const agent = new Agent({
      model: new ScriptedModel([{ text: '{"city":"Lyon","population":520000}' }]),
      outputType: z.object({ city: z.string(), population: z.number() }),
      outputMode: "native",
    });
    const units: AgentStreamEvent[] = await readAll(agent.stream("?"));
    const chunks = await readAll(toUIMessageStream(units));
    const data = chunks.filter((chunk) => chunk.type === "data-partial-output");
    expect(data.map((chunk) => (chunk as { data: unknown }).data)).toEqual([
      {},
      { city: "Lyon" },
      { city: "Lyon", population: 520_000 },
      { city: "Lyon", population: 520_000 },
    ]);
    for (const chunk of data) expect(chunk).toMatchObject({ id: "output" });
    // The AI SDK's own reader: one data part, holding the final output.
    let message: AiUIMessage | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    for (const state of await readAll(readUIMessageStream({ stream: stream as never, terminateOnError: true })))
      message = state as AiUIMessage;
    const parts = message?.parts.filter((part) => part.type === "data-partial-output");
    expect(parts).toEqual([{ type: "data-partial-output", id: "output", data: { city: "Lyon", population: 520_000 } }]);
    // And Nous's reducer agrees.
    const reducer = new UIMessageReducer();
    for (const chunk of chunks) reducer.apply(chunk);
    expect(reducer.parts.filter((part) => part.type === "data-partial-output")).toEqual(parts);
  });
});
