import { describe, expectTypeOf, it } from "vitest";
import { ContextUpdate } from "./context-update.js";

type Deps = {
  count: number;
  todos: { id: string; done: boolean }[];
  settings: { theme: { color: string; size: number }; lang: string };
  tags?: string[];
};

describe("ContextUpdate types", () => {
  it("checks keys and value types against the deps type", () => {
    const update = ContextUpdate.new<Deps>();
    update.set("count", 1);
    // @ts-expect-error count is a number
    update.set("count", "x");
    // @ts-expect-error no such key
    update.set("missing", 1);
    update.append("todos", { id: "1", done: false });
    update.append("tags", "urgent");
    // @ts-expect-error todos holds objects
    update.append("todos", "buy milk");
    // @ts-expect-error count is not a list
    update.append("count", 1);
    update.merge("settings", { theme: { size: 2 } });
    // @ts-expect-error size is a number
    update.merge("settings", { theme: { size: "big" } });
    // @ts-expect-error todos is a list, not a map
    update.merge("todos", {});
    update.delete("tags");
    // @ts-expect-error no such key
    update.delete("nope");
  });

  it("toDeps returns the deps type", () => {
    expectTypeOf(ContextUpdate.new<Deps>().toDeps).returns.toEqualTypeOf<Deps>();
  });

  it("an untyped update accepts any string key and value", () => {
    const update = ContextUpdate.new().set("anything", 1).append("list", { a: 1 }).merge("map", { b: 2 });
    expectTypeOf(update).toEqualTypeOf<ContextUpdate<Record<string, unknown>>>();
  });
});
