import { describe, expect, it } from "vitest";
import { ContextUpdateError } from "../errors/context-update-error.js";
import { NousError } from "../errors/nous-error.js";
import { AgentContext } from "../session/agent-context.js";
import { RunContext } from "../session/run-context.js";
import { captureLogger, snapshot } from "../test-support/capture-logger.js";
import { ContextUpdate } from "./context-update.js";

const update = () => ContextUpdate.new();

describe("ContextUpdate ordering", () => {
  it("set then append appends to the set list", () => {
    expect(update().set("k", [9, 8]).append("k", 1).toDeps({})).toEqual({ k: [9, 8, 1] });
  });

  it("append then set keeps only the set value", () => {
    expect(update().append("k", 1).set("k", [9, 8]).toDeps({})).toEqual({ k: [9, 8] });
  });

  it("append, append, delete, append keeps only the last item", () => {
    expect(
      update()
        .append("k", 1)
        .append("k", 2)
        .delete("k")
        .append("k", 3)
        .toDeps({ k: [0] }),
    ).toEqual({ k: [3] });
  });

  it("appends to different keys keep independent order", () => {
    const result = update().append("a", 1).append("b", "x").append("a", 2).append("b", "y").append("a", 3).toDeps({});
    expect(result).toEqual({ a: [1, 2, 3], b: ["x", "y"] });
  });

  it("append onto null, undefined or an absent key starts a list", () => {
    expect(update().append("a", 1).append("b", 2).append("c", 3).toDeps({ a: null, b: undefined })).toEqual({
      a: [1],
      b: [2],
      c: [3],
    });
  });

  it("append onto an existing list keeps its items", () => {
    expect(
      update()
        .append("k", 3)
        .toDeps({ k: [1, 2] }),
    ).toEqual({ k: [1, 2, 3] });
  });

  it("set replaces whatever was there", () => {
    expect(
      update()
        .set("k", { a: 1 })
        .set("k", 5)
        .toDeps({ k: [1] }),
    ).toEqual({ k: 5 });
  });

  it("delete of an absent key is a no-op", () => {
    expect(update().delete("missing").toDeps({ a: 1 })).toEqual({ a: 1 });
  });
});

describe("ContextUpdate merge", () => {
  it("merges nested plain objects recursively", () => {
    const initial = { settings: { theme: { color: "red", size: 1 }, lang: "en" } };
    const result = update()
      .merge("settings", { theme: { size: 2 }, extra: true })
      .toDeps(initial);
    expect(result).toEqual({ settings: { theme: { color: "red", size: 2 }, lang: "en", extra: true } });
  });

  it("merge into an absent key stores the map itself", () => {
    expect(
      update()
        .merge("m", { a: { b: 1 } })
        .toDeps({}),
    ).toEqual({ m: { a: { b: 1 } } });
  });

  it("merge over a non-object value replaces it with the map", () => {
    expect(update().merge("m", { a: 1 }).toDeps({ m: 42 })).toEqual({ m: { a: 1 } });
    expect(
      update()
        .merge("m", { a: 1 })
        .toDeps({ m: [1, 2] }),
    ).toEqual({ m: { a: 1 } });
  });

  it("a non-object value on the right wins over a nested object", () => {
    const result = update()
      .merge("m", { a: 5, b: [1], c: null })
      .toDeps({ m: { a: { deep: true }, b: { x: 1 }, c: { y: 2 } } });
    expect(result).toEqual({ m: { a: 5, b: [1], c: null } });
  });

  it("successive merges into one key accumulate", () => {
    const result = update()
      .merge("m", { a: 1 })
      .merge("m", { b: { c: 1 } })
      .merge("m", { b: { d: 2 } })
      .toDeps({});
    expect(result).toEqual({ m: { a: 1, b: { c: 1, d: 2 } } });
  });

  it("keeps __proto__ and constructor keys as data", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}');
    const result = update().merge("m", value).merge("m", JSON.parse('{"__proto__": {"more": 1}}')).toDeps({});
    expect(Object.getPrototypeOf(result.m)).toBe(Object.prototype);
    expect(Object.keys(result.m as object)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const set = update().set("__proto__", { x: 1 }).toDeps({});
    expect(Object.getPrototypeOf(set)).toBe(Object.prototype);
    expect(Object.hasOwn(set, "__proto__")).toBe(true);
  });
});

describe("ContextUpdate immutability", () => {
  it("builders return new updates and leave the receiver unchanged", () => {
    const base = update().set("a", 1);
    const longer = base.append("b", 2);
    expect(base.operations()).toEqual([{ op: "set", key: "a", value: 1 }]);
    expect(longer.operations()).toHaveLength(2);
    const branch = base.delete("a");
    expect(longer.operations()[1]).toEqual({ op: "append", key: "b", item: 2 });
    expect(branch.operations()[1]).toEqual({ op: "delete", key: "a" });
    expect(ContextUpdate.new().isEmpty()).toBe(true);
    expect(base.isEmpty()).toBe(false);
  });

  it("operations are frozen", () => {
    const operations = update().set("a", 1).operations();
    expect(Object.isFrozen(operations)).toBe(true);
    expect(Object.isFrozen(operations[0])).toBe(true);
  });

  it("toDeps never mutates the initial map or anything reachable from it", () => {
    const initial = { list: [1, { n: 1 }], nested: { a: { b: [1] } }, gone: 1 };
    const before = snapshot(initial);
    const listRef = initial.list;
    update()
      .append("list", 3)
      .merge("nested", { a: { b: [2], c: 1 } })
      .merge("nested", { z: 1 })
      .delete("gone")
      .set("new", 1)
      .append("list", 4)
      .toDeps(initial);
    expect(initial).toEqual(before);
    expect(initial.list).toBe(listRef);
  });

  it("never mutates values held by operations", () => {
    const list = [1];
    const map = { a: { b: 1 } };
    const built = update()
      .set("k", list)
      .append("k", 2)
      .merge("m", map)
      .merge("m", { a: { c: 2 } });
    const first = built.toDeps({});
    expect(list).toEqual([1]);
    expect(map).toEqual({ a: { b: 1 } });
    expect(built.toDeps({})).toEqual(first);
  });
});

describe("ContextUpdate log events", () => {
  it("logEvents lists [type, data] in order, skipping deps operations", () => {
    const built = update().logEvent("a", { n: 1 }).set("x", 1).logEvent("b", { n: 2 }).append("y", 1).logEvent("c", 3);
    expect(built.logEvents()).toEqual([
      ["a", { n: 1 }],
      ["b", { n: 2 }],
      ["c", 3],
    ]);
  });

  it("toDeps skips log events", () => {
    expect(update().logEvent("audit", { x: 1 }).set("a", 1).toDeps({})).toEqual({ a: 1 });
  });
});

describe("ContextUpdate.apply", () => {
  it("applies deps operations first, then appends log events in order; messages untouched", () => {
    const context = AgentContext.create({ deps: { n: 1 } as Record<string, unknown> }).addMessage({
      role: "user",
      content: "hi",
    });
    const applied = update().logEvent("first", 1).set("n", 2).logEvent("second", 2).append("l", "x").apply(context);
    expect(applied.deps).toEqual({ n: 2, l: ["x"] });
    expect(applied.log.events.slice(1).map((event) => [event.type, event.data])).toEqual([
      [
        "context_update",
        {
          operations: [
            { op: "set", key: "n", value: 2 },
            { op: "append", key: "l", item: "x" },
          ],
        },
      ],
      ["first", 1],
      ["second", 2],
    ]);
    expect(applied.messages).toEqual(context.messages);
    expect(context.deps).toEqual({ n: 1 });
    expect(context.log.length).toBe(1);
  });

  it("routes log events through the context's logEvent, so surface types are refused", () => {
    const logs = captureLogger();
    const context = AgentContext.create({ deps: {} });
    const applied = update().logEvent("user_message", { content: "smuggled" }).logEvent("ok", 1).apply(context);
    expect(applied.messages).toEqual([]);
    expect(applied.log.events.map((event) => event.type)).toEqual(["ok"]);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.message).toContain("user_message");
  });

  it("an empty update returns the same context", () => {
    const context = AgentContext.create({ deps: {} });
    expect(ContextUpdate.new().apply(context)).toBe(context);
  });
});

describe("ContextUpdate.applyToRunContext", () => {
  it("applies deps and drops log events with one warning naming every dropped type", () => {
    const logs = captureLogger();
    const runContext = RunContext.create({ deps: { n: 1 } as Record<string, unknown> });
    const next = update().logEvent("audit", 1).set("n", 2).logEvent("billing", 2).applyToRunContext(runContext);
    expect(next.deps).toEqual({ n: 2 });
    expect(runContext.deps).toEqual({ n: 1 });
    expect(logs).toHaveLength(1);
    expect(logs[0]?.level).toBe("warn");
    expect(logs[0]?.message).toContain("audit");
    expect(logs[0]?.message).toContain("billing");
    expect(logs[0]?.details).toEqual({ droppedEventTypes: ["audit", "billing"] });
  });

  it("does not warn when no event is dropped", () => {
    const logs = captureLogger();
    update()
      .set("n", 2)
      .applyToRunContext(RunContext.create({ deps: {} }));
    expect(logs).toEqual([]);
  });
});

describe("ContextUpdate bad input", () => {
  it.each([
    ["set", () => update().set("", 1)],
    ["merge", () => update().merge("", {})],
    ["append", () => update().append("", 1)],
    ["delete", () => update().delete("")],
    ["set", () => update().set(7 as unknown as string, 1)],
  ])("rejects an invalid key for %s at build time", (operation, build) => {
    const error = captureError(build);
    expect(error).toBeInstanceOf(ContextUpdateError);
    expect(error).toMatchObject({ code: "context_update_invalid", operation, problem: "invalid_key" });
    expect(NousError.isInstance(error)).toBe(true);
  });

  it("rejects a merge whose value is not a plain object, naming the key", () => {
    for (const value of [[1], 5, null, new Date(), "x"]) {
      const error = captureError(() => update().merge("settings", value as unknown as Record<string, unknown>));
      expect(error).toMatchObject({ operation: "merge", key: "settings", problem: "merge_value_not_object" });
      expect((error as Error).message).toContain('"settings"');
    }
  });

  it("rejects an empty log event type", () => {
    expect(captureError(() => update().logEvent(""))).toMatchObject({ problem: "invalid_event_type" });
  });

  it("rejects append onto a non-list at fold time and applies nothing", () => {
    const initial = { count: 5, list: [1] };
    const built = update().append("list", 2).set("other", 1).append("count", 1);
    const error = captureError(() => built.toDeps(initial));
    expect(error).toMatchObject({ operation: "append", key: "count", problem: "append_target_not_list" });
    expect(initial).toEqual({ count: 5, list: [1] });
  });

  it("an agent context is unchanged when an update fails", () => {
    const context = AgentContext.create({ deps: { count: 5 } as Record<string, unknown> });
    expect(() => update().set("a", 1).logEvent("audit").append("count", 1).apply(context)).toThrow(ContextUpdateError);
    expect(context.deps).toEqual({ count: 5 });
    expect(context.log.length).toBe(0);
  });

  it("validates operations read back from elsewhere", () => {
    const forged = ContextUpdate.fromOperations([
      { op: "set", key: "a", value: 1 },
      { op: "merge", key: "m", value: [] as unknown as Record<string, unknown> },
    ]);
    expect(captureError(() => forged.toDeps({}))).toMatchObject({ problem: "merge_value_not_object" });
    const unknown = ContextUpdate.fromOperations([{ op: "rename", key: "a" } as never]);
    expect(captureError(() => unknown.toDeps({}))).toMatchObject({ problem: "unknown_operation" });
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
