import { EventNotSerializableError } from "../../errors/store-errors.js";
import type { SessionEvent } from "../../session/events.js";
import { AT, type ConformanceContext, event } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** What `data` can hold, and what it cannot. */
export function definePayloadCases({ store }: ConformanceContext): void {
  describe("payloads", () => {
    it("round-trips a 10 MB payload", async () => {
      const big = "x".repeat(5 * 1024 * 1024) + "é😀".repeat(1024 * 1024);
      const data = { big, list: Array.from({ length: 1000 }, (_, index) => ({ index, text: `item ${index}` })) };
      await store().append("big", [event(1, "blob", data), event(2)], { expectedLastSeq: 0 });
      const [first, second] = await store().read("big");
      expect((first?.data as typeof data).big.length).toBe(big.length);
      expect(first?.data).toEqual(data);
      expect(second?.seq).toBe(2);
    });

    it("keeps __proto__, constructor and prototype keys as own data, in key order", async () => {
      const data = JSON.parse(
        '{"z":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"a":[{"__proto__":null}],"10":"n","2":"m"}',
      ) as Record<string, unknown>;
      await store().append("proto", [event(1, "weird_keys", data)], { expectedLastSeq: 0 });
      const [read] = await store().read("proto");
      const back = read?.data as Record<string, unknown>;
      expect(JSON.stringify(back)).toBe(JSON.stringify(data));
      expect(Object.keys(back)).toEqual(Object.keys(data));
      expect(Object.hasOwn(back, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it("round-trips unicode: emoji, \\u0000, unpaired surrogates, RTL, combining marks, in keys and values", async () => {
      const data = {
        "emoji 😀": "👩🏽‍💻 family 👨‍👩‍👧‍👦 flag 🇫🇷",
        nul: "before\u0000after",
        "key\u0000with nul": 1,
        lone: "\ud800 and \udfff",
        rtl: "مرحبا بالعالم",
        cjk: "漢字かなカナ",
        combining: "e\u0301 vs é",
        controls: "\u0001\u001f\u007f\u2028\u2029",
      };
      await store().append("unicode-🌍", [event(1, "type-✓", data)], { expectedLastSeq: 0 });
      const [read] = await store().read("unicode-🌍");
      expect(read).toEqual({ seq: 1, at: AT, type: "type-✓", data, sessionId: "unicode-🌍" });
      expect((read?.data as typeof data).nul).toHaveLength(data.nul.length);
      expect(await store().get("unicode-🌍")).toMatchObject({ sessionId: "unicode-🌍" });
    });

    it("serializes like JSON: toJSON is honoured and undefined properties are dropped", async () => {
      const when = new Date(Date.UTC(2025, 0, 2));
      await store().append("json", [event(1, "note", { when, gone: undefined, kept: null })], { expectedLastSeq: 0 });
      const [read] = await store().read("json");
      expect(read?.data).toEqual({ when: when.toISOString(), kept: null });
      expect(Object.keys(read?.data as object)).toEqual(["when", "kept"]);
    });

    const cycle: Record<string, unknown> = { name: "loop" };
    cycle.self = cycle;
    const cases: [string, unknown, string][] = [
      ["a function", { callback: () => 1 }, "data.callback"],
      ["a bigint", { count: 10n }, "data.count"],
      ["a symbol", { tag: Symbol("x") }, "data.tag"],
      ["a cycle", { wrapper: cycle }, "data.wrapper.self"],
      ["NaN", { ratio: Number.NaN }, "data.ratio"],
      ["a Map", { index: new Map([["a", 1]]) }, "data.index"],
      ["undefined in an array", { list: [1, undefined] }, "data.list[1]"],
      ["undefined data", undefined, "data"],
    ];
    for (const [name, data, path] of cases) {
      it(`rejects ${name} naming the event type, seq and path, writing nothing`, async () => {
        // Built literally: event()'s default parameter would replace undefined data.
        const bad = { seq: 2, at: AT, type: "tool_audit", data } as SessionEvent;
        const append = store().append("bad", [event(1, "fine"), bad], { expectedLastSeq: 0 });
        await expect(append).rejects.toBeInstanceOf(EventNotSerializableError);
        await expect(append).rejects.toMatchObject({
          code: "event_not_serializable",
          eventType: "tool_audit",
          seq: 2,
          path,
        });
        await expect(append).rejects.toThrow(/"tool_audit" \(seq 2\)/);
        expect(await store().exists("bad")).toBe(false);
        expect(await store().read("bad")).toEqual([]);
      });
    }

    it("accepts a value shared twice that is not a cycle", async () => {
      const shared = { a: 1 };
      await store().append("dag", [event(1, "note", { left: shared, right: shared })], { expectedLastSeq: 0 });
      expect((await store().read("dag"))[0]?.data).toEqual({ left: { a: 1 }, right: { a: 1 } });
    });
  });
}
