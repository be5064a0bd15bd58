import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { PausedApproval } from "../session/events.js";
import { type AgentStreamEvent, isDelta, isLogEvent } from "./agent-stream-event.js";
import type { RunResult } from "./types.js";

describe("stream events narrow by kind and type", () => {
  it("narrows deltas by kind then type, and log events by isLogEvent", async () => {
    const agent = new Agent<{ notes: string[] }, { title: string }>({
      model: "test",
      outputType: z.object({ title: z.string() }),
    });
    const stream = agent.stream("hi", { deps: { notes: [] } });
    expectTypeOf(stream.result).toEqualTypeOf<Promise<RunResult<{ title: string }, { notes: string[] }>>>();
    for await (const event of stream) {
      if (event.kind === "delta" && event.type === "text-delta") expectTypeOf(event.text).toEqualTypeOf<string>();
      if (event.kind === "delta" && event.type === "tool-call-end") expectTypeOf(event.args).toEqualTypeOf<unknown>();
      if (isLogEvent(event, "run_paused")) {
        expectTypeOf(event.data.pending).toEqualTypeOf<readonly PausedApproval[]>();
        expectTypeOf(event.seq).toEqualTypeOf<number>();
      }
      if (isLogEvent(event, "partial_response")) expectTypeOf(event.data.output.text).toEqualTypeOf<string>();
      if (isDelta(event)) {
        // @ts-expect-error a delta has no seq: it is not in the log
        event.seq;
      }
    }
    const events: AgentStreamEvent[] = [];
    expectTypeOf(events.filter(isDelta)).toEqualTypeOf<Extract<AgentStreamEvent, { kind: "delta" }>[]>();
  });

  it("types structured output events by the output type: a deep partial, the element, the output", async () => {
    const Book = z.object({ title: z.string(), tags: z.array(z.string()), meta: z.object({ year: z.number() }) });
    const books = new Agent({ model: "test", outputType: z.array(Book) });
    for await (const event of books.stream("hi")) {
      if (event.kind !== "output") continue;
      if (event.type === "partial-output") {
        expectTypeOf(event.partial).toEqualTypeOf<{ title?: string; tags?: string[]; meta?: { year?: number } }[]>();
      } else if (event.type === "output-element") {
        expectTypeOf(event.element).toEqualTypeOf<z.infer<typeof Book>>();
        expectTypeOf(event.index).toEqualTypeOf<number>();
      } else expectTypeOf(event.output).toEqualTypeOf<z.infer<typeof Book>[]>();
      // @ts-expect-error an output event is not in the log
      event.seq;
    }
    // A stream of a typed agent still goes where any stream does (e.g. a UI mapper takes AgentStreamEvent).
    const take = (_event: AgentStreamEvent) => {};
    for await (const event of books.stream("hi")) take(event);
    const text = new Agent({ model: "test" });
    for await (const event of text.stream("hi")) {
      if (event.kind === "output" && event.type === "output") expectTypeOf(event.output).toEqualTypeOf<string>();
    }
  });
});
