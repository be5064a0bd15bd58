import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { RunContext } from "../session/run-context.js";
import { tool } from "../tools/tool.js";

type Deps = { list: number[] };

const calls = (count: number) => [
  ...Array.from({ length: count }, (_, index) => ({
    toolCalls: [{ id: `c${index}`, name: "push", args: { n: index } }],
  })),
  { text: "done" },
];

describe("deps built by a run are written in place until someone reads them", () => {
  it("a tool that read deps keeps an unchanging snapshot; the caller's deps and earlier results are never touched", async () => {
    const seen: { list: number[]; length: number }[] = [];
    const push = tool({
      name: "push",
      description: "append n",
      input: z.object({ n: z.number() }),
      execute: ({ n }, context: RunContext<Deps>) => {
        if (n % 2 === 0) seen.push({ list: context.deps.list, length: context.deps.list.length });
        return { result: "ok", update: ContextUpdate.new<Deps>().append("list", n) };
      },
    });
    const initial: Deps = { list: [] };
    const agent = new Agent<Deps>({ model: new ScriptedModel(calls(6)), tools: [push] });
    const first = await agent.run("go", { deps: initial });
    expect(first.deps.list).toEqual([0, 1, 2, 3, 4, 5]);
    expect(initial.list).toEqual([]);
    for (const snapshot of seen) expect(snapshot.list).toHaveLength(snapshot.length);
    expect(seen.map((snapshot) => snapshot.length)).toEqual([0, 2, 4]);

    const again = new Agent<Deps>({ model: new ScriptedModel(calls(3)), tools: [push] });
    const second = await again.run("go", { deps: first.deps });
    expect(second.deps.list).toEqual([0, 1, 2, 3, 4, 5, 0, 1, 2]);
    expect(first.deps.list).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("an update with a bad log event is refused whole, as ContextUpdate.apply refuses it", async () => {
    const bad = tool({
      name: "push",
      description: "append n, with a log event of no type",
      input: z.object({ n: z.number() }),
      execute: ({ n }, _context: RunContext<Deps>) => ({
        result: "ok",
        update: ContextUpdate.fromOperations<Deps>([
          { op: "append", key: "list", item: n },
          { op: "log_event", type: "", data: {} },
        ]),
      }),
    });
    const result = await new Agent<Deps>({ model: new ScriptedModel(calls(1)), tools: [bad] }).run("go", {
      deps: { list: [] },
    });
    expect(result.deps.list).toEqual([]);
    const toolResult = result.log.find((event) => event.type === "tool_result");
    expect(toolResult?.data).toMatchObject({ isError: true });
    expect(result.log.map((event) => event.type)).not.toContain("context_update");
  });

  it("appending through a run costs the same beside a long list as beside a short one", async () => {
    const push = tool({
      name: "push",
      description: "append n",
      input: z.object({ n: z.number() }),
      execute: ({ n }, _context: RunContext<Deps>) => ({
        result: "ok",
        update: ContextUpdate.new<Deps>().append("list", n),
      }),
    });
    const timeRun = async (size: number) => {
      const agent = new Agent<Deps>({ model: new ScriptedModel(calls(200)), tools: [push], maxIterations: 300 });
      const deps = { list: Array.from({ length: size }, (_, index) => index) };
      const start = performance.now();
      const result = await agent.run("go", { deps });
      expect(result.deps.list).toHaveLength(size + 200);
      return performance.now() - start;
    };
    await timeRun(100); // warm up
    const short = Math.max(await timeRun(100), 1);
    const long = await timeRun(300_000);
    // Copying the list on every append would make the long run ~100x slower; in place the first
    // append copies once and the rest cost what they cost beside a short list.
    expect(long / short).toBeLessThan(10);
  });
});
