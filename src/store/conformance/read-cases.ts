import { StoreArgumentError } from "../../errors/store-errors.js";
import { type ConformanceContext, events, stored } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** Reads, summaries of unknown sessions, deletion. */
export function defineReadCases({ store }: ConformanceContext): void {
  describe("read", () => {
    it("reads from a seq, with a limit", async () => {
      await store().append("s1", events(1, 10), { expectedLastSeq: 0 });
      expect(await store().read("s1", { fromSeq: 4 })).toEqual(stored("s1", events(4, 7)));
      expect(await store().read("s1", { fromSeq: 4, limit: 2 })).toEqual(stored("s1", events(4, 2)));
      expect(await store().read("s1", { limit: 1 })).toEqual(stored("s1", events(1, 1)));
      expect(await store().read("s1", { fromSeq: 10 })).toEqual(stored("s1", events(10, 1)));
      expect(await store().read("s1", { fromSeq: 11 })).toEqual([]);
      expect(await store().read("s1", { limit: 0 })).toEqual([]);
    });

    it("treats an unknown session as empty", async () => {
      expect(await store().read("nobody")).toEqual([]);
      expect(await store().lastSeq("nobody")).toBe(0);
      expect(await store().exists("nobody")).toBe(false);
      expect(await store().get("nobody")).toBeUndefined();
    });

    it("rejects a bad fromSeq or limit", async () => {
      await expect(store().read("s1", { fromSeq: 0 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().read("s1", { fromSeq: 1.5 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().read("s1", { limit: -1 })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it("returns fresh objects: mutating what was read changes nothing stored", async () => {
      await store().append("s1", events(1, 1), { expectedLastSeq: 0 });
      const [first] = await store().read("s1");
      (first?.data as { n: number }).n = 99;
      expect(await store().read("s1")).toEqual(stored("s1", events(1, 1)));
    });
  });

  describe("delete", () => {
    it("removes the session and its events; a second delete reports false", async () => {
      await store().append("s1", events(1, 3), { expectedLastSeq: 0 });
      await store().append("s2", events(1, 1), { expectedLastSeq: 0 });
      expect(await store().delete("s1")).toBe(true);
      expect(await store().exists("s1")).toBe(false);
      expect(await store().read("s1")).toEqual([]);
      expect(await store().lastSeq("s1")).toBe(0);
      expect((await store().list()).sessions.map((summary) => summary.sessionId)).toEqual(["s2"]);
      expect(await store().delete("s1")).toBe(false);
    });

    it("lets a deleted session id start over from seq 1", async () => {
      await store().append("s1", events(1, 3), { expectedLastSeq: 0 });
      await store().delete("s1");
      await store().append("s1", events(1, 1), { expectedLastSeq: 0 });
      expect(await store().read("s1")).toEqual(stored("s1", events(1, 1)));
    });
  });
}
