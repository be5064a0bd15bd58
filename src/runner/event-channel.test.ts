import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { ConsumerStoppedError, EventChannel } from "./event-channel.js";

describe("EventChannel", () => {
  it("runs nothing before the first next(), then pauses at each event until the next is asked for", async () => {
    const trace: string[] = [];
    const channel = new EventChannel<number, string>(async (emit) => {
      trace.push("start");
      await emit(1);
      trace.push("after 1");
      await emit(2);
      trace.push("after 2");
      return "done";
    });
    await Promise.resolve();
    expect(trace).toEqual([]);
    expect(await channel.next()).toEqual({ done: false, value: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(trace).toEqual(["start"]);
    expect(await channel.next()).toEqual({ done: false, value: 2 });
    expect(trace).toEqual(["start", "after 1"]);
    expect(await channel.next()).toEqual({ done: true, value: "done" });
    expect(await channel.next()).toEqual({ done: true, value: undefined });
  });

  it("throw() raises the error inside the run at its pending event", async () => {
    const seen: unknown[] = [];
    const channel = new EventChannel<number, string>(async (emit) => {
      try {
        await emit(1);
      } catch (error) {
        seen.push(error);
        throw error;
      }
      return "unreachable";
    });
    await channel.next();
    const injected = new Error("stop here");
    await expect(channel.throw(injected)).rejects.toBe(injected);
    expect(seen).toEqual([injected]);
  });

  it("return() unwinds the run with ConsumerStoppedError, runs its finally blocks, and reports done", async () => {
    let unwound: unknown;
    let cleaned = false;
    const channel = new EventChannel<number, string>(async (emit) => {
      try {
        await emit(1);
        await emit(2);
        return "unreachable";
      } catch (error) {
        unwound = error;
        throw error;
      } finally {
        cleaned = true;
      }
    });
    await channel.next();
    expect(await channel.return("stopped")).toEqual({ done: true, value: "stopped" });
    expect(unwound).toBeInstanceOf(ConsumerStoppedError);
    expect(cleaned).toBe(true);
    expect(await channel.next()).toEqual({ done: true, value: undefined });
  });

  it("deltas ({ pause: false }) are queued in order without holding the run; a failure after them comes after them", async () => {
    const trace: string[] = [];
    const channel = new EventChannel<string, string>(async (emit) => {
      emit("d1", { pause: false });
      emit("d2", { pause: false });
      trace.push("ran past the deltas");
      await emit("end");
      throw new TypeError("broken after end");
    });
    expect(await channel.next()).toEqual({ done: false, value: "d1" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(trace).toEqual(["ran past the deltas"]);
    expect(await channel.next()).toEqual({ done: false, value: "d2" });
    expect(await channel.next()).toEqual({ done: false, value: "end" });
    await expect(channel.next()).rejects.toThrow("broken after end");
  });

  it("return() while the run is busy ends the iteration at once; the run unwinds at its next pausing event", async () => {
    let release: () => void = () => {};
    const busy = new Promise<void>((resolve) => {
      release = resolve;
    });
    let unwound: unknown;
    const channel = new EventChannel<string, string>(async (emit) => {
      emit("delta", { pause: false });
      await busy;
      try {
        await emit("decision");
      } catch (error) {
        unwound = error;
        throw error;
      }
      return "unreachable";
    });
    expect(await channel.next()).toEqual({ done: false, value: "delta" });
    expect(await channel.return("stopped")).toEqual({ done: true, value: "stopped" });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(unwound).toBeInstanceOf(ConsumerStoppedError);
    expect(await channel.next()).toEqual({ done: true, value: undefined });
  });

  it("a run's failure rejects the pending next()", async () => {
    const channel = new EventChannel<number, string>(async () => {
      throw new TypeError("broken");
    });
    await expect(channel.next()).rejects.toThrow("broken");
  });
});

describe("agent.stream as a channel", () => {
  const slow = tool({
    name: "slow",
    description: "counts its calls",
    input: z.object({}),
    execute: () => "ran",
  });

  it("breaking out of the loop stops the run where it was: no further model call, nothing recorded as failed", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "slow", args: {} }] }, { text: "done" }]);
    const store = new MemoryStore();
    const agent = new Agent({ model, tools: [slow] });
    for await (const event of agent.stream("go", { sessionId: "s1", store })) {
      if (event.type === "tool-call-end") break;
    }
    expect(model.requests).toHaveLength(1);
    const types = (await store.read("s1")).map((event) => event.type);
    expect(types).not.toContain("run_failed");
    expect(types).not.toContain("tool_call");
  });

  it("an error thrown into the stream fails the run at that event and is recorded", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "slow", args: {} }] }, { text: "done" }]);
    const store = new MemoryStore();
    const agent = new Agent({ model, tools: [slow] });
    const iterator = agent.stream("go", { sessionId: "s2", store })[Symbol.asyncIterator]() as AsyncIterator<
      { type: string },
      unknown
    > & { throw(error: unknown): Promise<IteratorResult<{ type: string }>> };
    let next = await iterator.next();
    while (!next.done && next.value.type !== "tool-call-end") next = await iterator.next();
    // The run fails at that event: the reader gets the events of its end, then the error.
    const after: string[] = [];
    const failure = await (async () => {
      for (let step = await iterator.throw(new Error("not allowed")); !step.done; step = await iterator.next()) {
        after.push(step.value.type);
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe("not allowed");
    expect(after).toEqual(["partial_response", "run_failed"]);
    const events = await store.read("s2");
    expect(events.at(-1)?.type).toBe("run_failed");
    // What the model had sent is kept (bookkeeping): the call was complete, and never ran.
    expect(events.at(-2)).toMatchObject({
      type: "partial_response",
      data: { reason: "failed", output: { toolCalls: [{ toolCallId: "c1", toolName: "slow", complete: true }] } },
    });
    expect(events.map((event) => event.type)).not.toContain("tool_call");
  });
});
