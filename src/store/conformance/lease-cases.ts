import { LeaseLostError } from "../../errors/lease-errors.js";
import { SessionConflictError, StoreArgumentError, StoreClosedError } from "../../errors/store-errors.js";
import type { Lease } from "../session-store.js";
import { type ConformanceContext, elapse, event, events } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** A ttl no test outlives. */
const LIVE = 60_000;
/** A ttl the tests let pass (with `elapse(PAST)`). */
const SHORT = 40;
const PAST = 120;

/** Leases and fencing: one writer per session, provably. */
export function defineLeaseCases({ store, reopen }: ConformanceContext): void {
  const acquire = (sessionId: string, owner: string, ttlMs = LIVE) => store().acquireLease(sessionId, { owner, ttlMs });
  const fenced = async (sessionId: string, lease: Lease | number, count = 1) => {
    const last = await store().lastSeq(sessionId);
    const fence = typeof lease === "number" ? lease : lease.token;
    await store().append(sessionId, events(last + 1, count), { expectedLastSeq: last, fence });
  };
  const statusOf = async (sessionId: string) => (await store().get(sessionId))?.status;
  const lost = (sessionId: string, token: number) => ({ code: "lease_lost", fault: "conflict", sessionId, token });

  describe("leases", () => {
    it("leases a session that does not exist yet and refuses another owner while the lease is live", async () => {
      const lease = await acquire("new", "run-a");
      expect(lease).toMatchObject({ sessionId: "new", owner: "run-a" });
      expect(Number.isSafeInteger(lease.token) && lease.token >= 1).toBe(true);
      expect(Date.parse(lease.expiresAt)).toBeGreaterThan(Date.now() + LIVE / 2);
      expect(await store().exists("new")).toBe(false);
      const refused = acquire("new", "run-b");
      await expect(refused).rejects.toBeInstanceOf(SessionConflictError);
      await expect(refused).rejects.toMatchObject({
        code: "session_conflict",
        reason: "lease_held",
        sessionId: "new",
        heldBy: "run-a",
        heldUntil: lease.expiresAt,
      });
      await expect(refused).rejects.toThrow(/run-a/);
      await fenced("new", lease, 2);
      expect(await store().lastSeq("new")).toBe(2);
    });

    it("lets the same owner acquire again, with a greater token that makes the older one stale", async () => {
      const first = await acquire("s", "run-a");
      const second = await acquire("s", "run-a");
      expect(second.token).toBeGreaterThan(first.token);
      await expect(fenced("s", first)).rejects.toMatchObject(lost("s", first.token));
      await fenced("s", second);
      expect(await store().lastSeq("s")).toBe(1);
    });

    it("hands an expired lease to a new owner with a greater token; the old holder can neither renew nor append", async () => {
      const old = await acquire("s", "run-a", SHORT);
      await store().append("s", [event(1, "run_started", { runId: "r1" })], { expectedLastSeq: 0, fence: old.token });
      await elapse(PAST);
      expect(await statusOf("s")).toBe("interrupted");
      const taken = await acquire("s", "run-b");
      expect(taken.token).toBeGreaterThan(old.token);
      expect(await statusOf("s")).toBe("running");
      await expect(store().renewLease(old, LIVE)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(store().renewLease(old, LIVE)).rejects.toMatchObject(lost("s", old.token));
      await expect(fenced("s", old)).rejects.toMatchObject(lost("s", old.token));
      await expect(store().append("s", [], { expectedLastSeq: 1, fence: old.token })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      expect(await store().lastSeq("s")).toBe(1);
      await store().releaseLease(old);
      await expect(acquire("s", "run-c")).rejects.toMatchObject({ reason: "lease_held", heldBy: "run-b" });
      await fenced("s", taken);
      expect(await store().lastSeq("s")).toBe(2);
    });

    it("keeps an expired lease nobody took: its token still fences, and a renewal makes it live again", async () => {
      const lease = await acquire("s", "run-a", SHORT);
      await elapse(PAST);
      await fenced("s", lease);
      const renewed = await store().renewLease(lease, LIVE);
      expect(renewed).toMatchObject({ sessionId: "s", owner: "run-a", token: lease.token });
      expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
      await expect(acquire("s", "run-b")).rejects.toMatchObject({ heldBy: "run-a", heldUntil: renewed.expiresAt });
      await fenced("s", renewed);
      expect(await store().lastSeq("s")).toBe(2);
    });

    it("releases idempotently and frees the session at once; a released token fences nothing", async () => {
      const lease = await acquire("s", "run-a");
      await fenced("s", lease);
      await store().releaseLease(lease);
      await store().releaseLease(lease);
      await expect(fenced("s", lease)).rejects.toMatchObject(lost("s", lease.token));
      await expect(store().renewLease(lease, LIVE)).rejects.toBeInstanceOf(LeaseLostError);
      await store().append("s", [event(2)], { expectedLastSeq: 1 });
      const next = await acquire("s", "run-b");
      expect(next.token).toBeGreaterThan(lease.token);
      expect(await store().lastSeq("s")).toBe(2);
    });

    it("refuses an unfenced append, or one fenced with another token, while a lease is live; nothing is written", async () => {
      await store().append("s", [event(1)], { expectedLastSeq: 0 });
      const lease = await acquire("s", "run-a");
      const unfenced = store().append("s", [event(2)], { expectedLastSeq: 1 });
      await expect(unfenced).rejects.toBeInstanceOf(SessionConflictError);
      await expect(unfenced).rejects.toMatchObject({ reason: "lease_held", heldBy: "run-a", sessionId: "s" });
      await expect(fenced("s", lease.token + 1)).rejects.toMatchObject(lost("s", lease.token + 1));
      await expect(store().append("other", [event(1)], { expectedLastSeq: 0, fence: 1 })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      expect(await store().lastSeq("s")).toBe(1);
      expect(await store().exists("other")).toBe(false);
      await fenced("s", lease);
      // The seq check still applies to a fenced append.
      await expect(store().append("s", [event(2)], { expectedLastSeq: 1, fence: lease.token })).rejects.toMatchObject({
        reason: "concurrent_append",
        expectedLastSeq: 1,
        actualLastSeq: 2,
      });
    });

    it("gives a session to exactly one of many concurrent acquirers", async () => {
      for (const id of ["race-new", "race-old"]) {
        if (id === "race-old") await store().releaseLease(await acquire(id, "earlier"));
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, index) => acquire(id, `owner-${index}`)),
        );
        const winners = results.filter((result) => result.status === "fulfilled");
        expect(winners).toHaveLength(1);
        for (const result of results) {
          if (result.status === "rejected") expect(result.reason).toMatchObject({ reason: "lease_held" });
        }
      }
    });

    it("reports a running session without a live lease as interrupted, in get and in list filters", async () => {
      const held = await acquire("held", "run-a");
      await store().append("held", [event(1, "run_started", { runId: "r" })], {
        expectedLastSeq: 0,
        fence: held.token,
      });
      await store().append("orphan", [event(1, "run_started", { runId: "r" })], { expectedLastSeq: 0 });
      await store().append(
        "done",
        [event(1, "run_started", { runId: "r" }), event(2, "run_completed", { runId: "r" })],
        {
          expectedLastSeq: 0,
        },
      );
      await store().append(
        "waiting",
        [event(1, "run_started", { runId: "r" }), event(2, "approval_requested", { toolCallId: "c", toolName: "t" })],
        { expectedLastSeq: 0 },
      );
      expect(await statusOf("held")).toBe("running");
      expect(await statusOf("orphan")).toBe("interrupted");
      const ids = async (status: Parameters<ReturnType<typeof store>["list"]>[0]) =>
        (await store().list(status)).sessions.map((summary) => summary.sessionId).sort();
      expect(await ids({ status: "running" })).toEqual(["held"]);
      expect(await ids({ status: "interrupted" })).toEqual(["orphan"]);
      expect(await ids({ status: ["running", "interrupted"] })).toEqual(["held", "orphan"]);
      expect(await ids({ status: ["interrupted", "completed", "awaiting_approval"] })).toEqual([
        "done",
        "orphan",
        "waiting",
      ]);
      const listed = new Map((await store().list()).sessions.map((summary) => [summary.sessionId, summary.status]));
      expect(Object.fromEntries(listed)).toEqual({
        held: "running",
        orphan: "interrupted",
        done: "completed",
        waiting: "awaiting_approval",
      });
      await store().releaseLease(held);
      expect(await statusOf("held")).toBe("interrupted");
      expect(await ids({ status: "interrupted" })).toEqual(["held", "orphan"]);
      // A lease on a finished session does not make it running.
      await acquire("done", "run-b");
      expect(await statusOf("done")).toBe("completed");
    });

    it("never reuses a token after the session is deleted", async () => {
      const first = await acquire("s", "run-a");
      await fenced("s", first);
      await store().releaseLease(first);
      expect(await store().delete("s")).toBe(true);
      const second = await acquire("s", "run-b");
      expect(second.token).toBeGreaterThan(first.token);
      await expect(fenced("s", first)).rejects.toBeInstanceOf(LeaseLostError);
    });

    it("rejects bad lease arguments with StoreArgumentError", async () => {
      const lease = await acquire("s", "run-a");
      const bad = [
        () => store().acquireLease("", { owner: "a", ttlMs: 1000 }),
        () => store().acquireLease("s2", { owner: "", ttlMs: 1000 }),
        () => store().acquireLease("s2", { owner: "a", ttlMs: 0 }),
        () => store().acquireLease("s2", { owner: "a", ttlMs: 1.5 }),
        () => store().acquireLease("s2", { owner: "a", ttlMs: 86_400_001 }),
        () => store().renewLease(lease, 0),
        () => store().renewLease({ ...lease, token: 0 }, 1000),
        () => store().releaseLease({ ...lease, sessionId: "" }),
        () => store().append("s", [event(1)], { expectedLastSeq: 0, fence: 0 }),
        () => store().append("s", [event(1)], { expectedLastSeq: 0, fence: 1.5 }),
      ];
      for (const call of bad) await expect(call()).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await store().exists("s")).toBe(false);
    });

    it("throws StoreClosedError from lease methods after close", async () => {
      const lease = await acquire("s", "run-a");
      await store().close();
      await expect(acquire("s", "run-a")).rejects.toBeInstanceOf(StoreClosedError);
      await expect(store().renewLease(lease, LIVE)).rejects.toBeInstanceOf(StoreClosedError);
      await expect(store().releaseLease(lease)).rejects.toBeInstanceOf(StoreClosedError);
    });

    if (reopen !== undefined) {
      it("keeps leases and tokens across a restart: a live lease still holds, and no token is handed out twice", async () => {
        const lease = await acquire("s", "run-a");
        await fenced("s", lease);
        await reopen();
        await expect(acquire("s", "run-b")).rejects.toMatchObject({ reason: "lease_held", heldBy: "run-a" });
        await fenced("s", lease);
        await store().releaseLease(lease);
        await reopen();
        const next = await acquire("s", "run-b");
        expect(next.token).toBeGreaterThan(lease.token);
        await expect(fenced("s", lease)).rejects.toBeInstanceOf(LeaseLostError);
        expect(await store().lastSeq("s")).toBe(2);
      });
    }
  });
}
