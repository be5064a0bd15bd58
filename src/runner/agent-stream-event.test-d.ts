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
});
