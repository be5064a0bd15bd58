import { SessionNotFoundError } from "../../errors/store-errors.js";
import type { StoreVerification } from "../store-verify.js";
import { type ConformanceContext, event, events, stored } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** `verify`: checksum chains read back clean, also across forks and paged reads. */
export function defineVerifyCases({ store }: ConformanceContext): void {
  describe("verify", () => {
    const verify = (sessionId?: string): Promise<StoreVerification> => {
      const method = store().verify;
      if (method === undefined) throw new Error("the store does not implement verify");
      return method.call(store(), sessionId);
    };

    it("reports every session clean, with event counts, and refuses an unknown session", async () => {
      await store().append("s1", events(1, 3), { expectedLastSeq: 0 });
      await store().append("s1", events(4, 2), { expectedLastSeq: 3 });
      await store().append("s2", events(1, 1), { expectedLastSeq: 0 });
      const report = await verify();
      expect(report).toMatchObject({ ok: true, checkedSessions: 2, checkedEvents: 6, damagedSessions: 0 });
      expect([...report.sessions].sort((left, right) => left.sessionId.localeCompare(right.sessionId))).toEqual([
        { status: "ok", sessionId: "s1", events: 5 },
        { status: "ok", sessionId: "s2", events: 1 },
      ]);
      expect(await verify("s2")).toMatchObject({ ok: true, checkedSessions: 1, sessions: [{ sessionId: "s2" }] });
      await expect(verify("nobody")).rejects.toBeInstanceOf(SessionNotFoundError);
    });

    it("keeps checksums valid through a fork, and the fork's own appends chain on", async () => {
      await store().append("src", events(1, 4), { expectedLastSeq: 0 });
      await store().fork("src", { atSeq: 3, newSessionId: "child" });
      await store().fork("src", { atSeq: 0, newSessionId: "empty" });
      await store().append("child", [event(4, "note", { branch: true })], { expectedLastSeq: 3 });
      await store().append("empty", [event(1, "note", { fresh: true })], { expectedLastSeq: 0 });
      expect(await verify()).toMatchObject({ ok: true, checkedSessions: 3, checkedEvents: 9 });
      expect(await store().read("child", { fromSeq: 3 })).toEqual(
        stored("child", [event(3), event(4, "note", { branch: true })]),
      );
    });

    it("chains appends made together (one group-commit batch) onto each other", async () => {
      await store().append("s1", events(1, 1), { expectedLastSeq: 0 });
      const results = await Promise.allSettled([
        store().append("s1", events(2, 2), { expectedLastSeq: 1 }),
        store().append("s1", events(4, 1), { expectedLastSeq: 3 }),
        store().append("s2", events(1, 1), { expectedLastSeq: 0 }),
        store().append("s1", events(5, 3), { expectedLastSeq: 4 }),
      ]);
      expect(results[0]?.status).toBe("fulfilled"); // the others may conflict where appends do not batch
      const lastSeq = await store().lastSeq("s1");
      expect(await verify()).toMatchObject({ ok: true, checkedEvents: lastSeq + 1 });
      expect((await store().read("s1")).map((item) => item.seq)).toEqual(
        Array.from({ length: lastSeq }, (_, index) => index + 1),
      );
    });

    it("verifies a session longer than one verification page, read back in pages", async () => {
      const total = 2345;
      for (let from = 1; from <= total; from += 500) {
        await store().append("long", events(from, Math.min(500, total - from + 1)), { expectedLastSeq: from - 1 });
      }
      expect(await verify("long")).toMatchObject({ ok: true, checkedEvents: total });
      expect((await store().read("long", { fromSeq: 1001, limit: 3 })).map((item) => item.seq)).toEqual([
        1001, 1002, 1003,
      ]);
    });
  });
}
