import { SessionExistsError, SessionNotFoundError, StoreArgumentError } from "../../errors/store-errors.js";
import { type ConformanceContext, event, stored } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** Forks copy a prefix into a new session; the source is never rewritten. */
export function defineForkCases({ store }: ConformanceContext): void {
  describe("fork", () => {
    const source = [
      event(1, "run_started", { runId: "r1", agent: "todo", model: "test" }),
      event(2, "user_message", { content: "hi" }),
      event(3, "note", { n: 3 }),
      event(4, "run_completed", { runId: "r1" }),
    ];

    it("copies events 1..atSeq into a new session that records its parent", async () => {
      await store().append("src", source, { expectedLastSeq: 0 });
      const forkId = await store().fork("src", { atSeq: 3, newSessionId: "child" });
      expect(forkId).toBe("child");
      expect(await store().read("child")).toEqual(stored("child", source.slice(0, 3)));
      expect(await store().get("child")).toMatchObject({
        sessionId: "child",
        parentSessionId: "src",
        forkedAtSeq: 3,
        lastSeq: 3,
        eventCount: 3,
        // A fork of a running prefix: no run holds the copy, so it can be resumed.
        status: "interrupted",
        agent: "todo",
        model: "test",
      });
      expect(await store().read("src")).toEqual(stored("src", source));
      expect(await store().get("src")).toMatchObject({ status: "completed" });
      expect(await store().get("src")).not.toHaveProperty("parentSessionId");
    });

    it("continues a fork independently of its source", async () => {
      await store().append("src", source, { expectedLastSeq: 0 });
      await store().fork("src", { atSeq: 2, newSessionId: "child" });
      await store().append("child", [event(3, "note", { branch: true })], { expectedLastSeq: 2 });
      expect((await store().read("child", { fromSeq: 3 }))[0]?.data).toEqual({ branch: true });
      expect((await store().read("src", { fromSeq: 3 }))[0]?.data).toEqual({ n: 3 });
      expect(await store().delete("src")).toBe(true);
      expect(await store().lastSeq("child")).toBe(3);
    });

    it("generates an id when none is given, and forks at 0 into an empty session", async () => {
      await store().append("src", source, { expectedLastSeq: 0 });
      const generated = await store().fork("src", { atSeq: 4 });
      expect(generated).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store().read(generated)).toEqual(stored(generated, source));
      const empty = await store().fork("src", { atSeq: 0, newSessionId: "empty" });
      expect(await store().get(empty)).toMatchObject({ lastSeq: 0, eventCount: 0, status: "idle", forkedAtSeq: 0 });
      await store().append("empty", [event(1)], { expectedLastSeq: 0 });
      expect(await store().lastSeq("empty")).toBe(1);
    });

    it("refuses a missing source, a fork point past the end and an existing target", async () => {
      await store().append("src", source, { expectedLastSeq: 0 });
      await expect(store().fork("missing", { atSeq: 1 })).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store().fork("src", { atSeq: 5 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().fork("src", { atSeq: -1 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().fork("src", { atSeq: 1, newSessionId: "src" })).rejects.toBeInstanceOf(SessionExistsError);
      expect(await store().read("src")).toEqual(stored("src", source));
    });
  });
}
