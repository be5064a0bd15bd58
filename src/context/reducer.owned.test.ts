import { describe, expect, it } from "vitest";
import { ContextUpdateError } from "../errors/context-update-error.js";
import { ContextUpdate } from "./context-update.js";
import { foldOperations, foldOwned } from "./reducer.js";

const ops = (update: ContextUpdate<Record<string, unknown>>) => update.operations();

describe("foldOwned (the runner's fold)", () => {
  it("gives the same deps as foldOperations, and never touches what it did not build", () => {
    const initial = { list: [1], nested: { a: 1 } };
    const given = [9];
    const owned = new WeakSet<object>();
    const update = ContextUpdate.new()
      .append("list", 2)
      .merge("nested", { b: 2 })
      .set("given", given)
      .append("given", 10);
    const result = foldOwned(initial, ops(update), owned);
    expect(result).toEqual(foldOperations(initial, ops(update)));
    expect(initial).toEqual({ list: [1], nested: { a: 1 } });
    expect(given).toEqual([9]);
  });

  it("writes in place only into what an earlier fold of the same owner built", () => {
    const owned = new WeakSet<object>();
    const first = foldOwned({ list: [0] }, ops(ContextUpdate.new().append("list", 1)), owned);
    const list = first.list as number[];
    const second = foldOwned(first, ops(ContextUpdate.new().append("list", 2)), owned);
    expect(second).toBe(first);
    expect(second.list).toBe(list);
    expect(list).toEqual([0, 1, 2]);
    // A new owner (what the runner makes when someone read deps) copies again.
    const third = foldOwned(second, ops(ContextUpdate.new().append("list", 3)), new WeakSet());
    expect(third).not.toBe(second);
    expect(list).toEqual([0, 1, 2]);
    expect(third.list).toEqual([0, 1, 2, 3]);
  });

  it("stays all-or-nothing: an update that fails changes nothing, even in place", () => {
    const owned = new WeakSet<object>();
    const deps = foldOwned({ list: [0], count: 1 }, ops(ContextUpdate.new().append("list", 1)), owned);
    const bad = ContextUpdate.fromOperations([
      { op: "append", key: "list", item: 2 },
      { op: "set", key: "count", value: 2 },
      { op: "append", key: "count", item: 3 },
    ]);
    expect(() => foldOwned(deps, bad.operations(), owned)).toThrow(ContextUpdateError);
    expect(deps).toEqual({ list: [0, 1], count: 1 });
  });

  it("appending to a long list costs the same as to a short one", () => {
    const appendMany = (size: number) => {
      const owned = new WeakSet<object>();
      let deps: Record<string, unknown> = { list: Array.from({ length: size }, (_, index) => index) };
      const start = performance.now();
      for (let index = 0; index < 2_000; index++)
        deps = foldOwned(deps, ops(ContextUpdate.new().append("list", index)), owned);
      return performance.now() - start;
    };
    appendMany(1_000); // warm up
    const short = Math.max(appendMany(1_000), 0.5);
    const long = appendMany(200_000);
    // Copying the list each time would make the long case ~200x slower; in place it is about 1x.
    expect(long / short).toBeLessThan(20);
  });
});
