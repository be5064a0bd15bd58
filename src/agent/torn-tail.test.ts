import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ContextUpdate } from "../context/context-update.js";
import { SessionStateError } from "../errors/run-errors.js";
import { FunctionModel } from "../models/function-model.js";
import type { RunContext } from "../session/run-context.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { checkProjections } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

type Deps = { items?: string[] };

/** Counts each effect, by item: a resumed fork must never repeat one its log says happened. */
function fixture(parallelToolCalls = false) {
  const effects: string[] = [];
  const add = tool({
    name: "add",
    description: "Add an item",
    input: z.object({ item: z.string() }),
    execute: ({ item }, _context: RunContext<Deps>) => {
      effects.push(item);
      return {
        result: { added: item },
        update: ContextUpdate.new<Deps>().append("items", item).logEvent("item_added", { item }),
      };
    },
  });
  // Two calls in one turn, then an answer: the state is in the log, so any process answers the same.
  const model = () =>
    new FunctionModel((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : {
            toolCalls: [
              { id: "c1", name: "add", args: { item: "a" } },
              { id: "c2", name: "add", args: { item: "b" } },
            ],
          },
    );
  const agent = () => new Agent<Deps>({ name: "adder", model: model(), tools: [add], parallelToolCalls });
  return { effects, agent };
}

const stores: [string, () => SessionStore][] = [
  ["memory", () => new MemoryStore()],
  ["SQLite", () => new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), "nous-torn-")), "s.db") })],
];

describe.each(stores)("a session forked mid-run is resumed (%s)", (_name, open) => {
  it.each([
    ["sequential", false],
    ["parallel", true],
  ])("from a fork at every seq of a run (%s calls), the resume completes; no effect the log records runs again, and deps are the log's projection", async (_mode, parallel) => {
    const store = open();
    const { effects, agent } = fixture(parallel);
    await agent().run("go", { sessionId: "source", store });
    const source = await store.read("source");
    expect(effects).toEqual(["a", "b"]);
    for (let atSeq = 2; atSeq < source.length; atSeq++) {
      const id = await store.fork("source", { atSeq, newSessionId: `fork-${atSeq}` });
      effects.length = 0;
      const result = await agent().resume(id, { store, resolveInDoubt: () => ({ type: "rerun" }) });
      checkProjections(result, {});
      expect(result.output, `fork at ${atSeq}`).toBe("done");
      // Each item once in the state: an update the fork kept is never applied again.
      expect(result.deps.items, `fork at ${atSeq}`).toEqual(["a", "b"]);
      // An effect happened in the source once its update is recorded; the rest are in doubt, re-run.
      const recorded = source.slice(0, atSeq).filter((event) => event.type === "context_update");
      expect(effects.length + recorded.length, `fork at ${atSeq}`).toBe(2);
      expect(await store.read(id)).toEqual(result.log.map((event) => ({ ...event, sessionId: id })));
    }
    await store.close();
  });

  it("a fork between a call's update and its result finishes the call's record instead of running it again", async () => {
    const store = open();
    const { effects, agent } = fixture();
    await agent().run("go", { sessionId: "source", store });
    const source = await store.read("source");
    const cut = source.find((event) => event.type === "item_added" && (event.data as { item: string }).item === "a");
    const id = await store.fork("source", { atSeq: cut?.seq ?? 0 });
    effects.length = 0;
    const result = await agent().resume(id, { store });
    expect(effects).toEqual(["b"]);
    const tail = result.log.slice(cut?.seq ?? 0).map((event) => event.type);
    expect(tail.slice(0, 3)).toEqual(["tool_call_abandoned", "tool_result", "run_resumed"]);
    const settled = result.log.find((event) => event.type === "tool_result");
    expect(settled?.data).toMatchObject({ toolCallId: "c1", isError: false });
    expect(String((settled?.data as { result: unknown }).result)).toContain("its result was not recorded");
    await store.close();
  });

  it("a fork cut right after run_started is not resumed (no prompt); a new run replaces it", async () => {
    const store = open();
    const { agent } = fixture();
    await agent().run("go", { sessionId: "source", store });
    const id = await store.fork("source", { atSeq: 1 });
    const refused = await agent()
      .resume(id, { store })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionStateError);
    expect((refused as Error).message).toMatch(/recorded no prompt/);
    expect(await store.read(id)).toHaveLength(1);
    const result = await agent().run("go again", { sessionId: id, store });
    expect(result.output).toBe("done");
    expect(result.messages[0]).toEqual({ role: "user", content: "go again" });
    await store.close();
  });
});
