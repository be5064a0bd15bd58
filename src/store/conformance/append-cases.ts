import {
  EventSequenceError,
  SessionConflictError,
  StoreArgumentError,
  StoreClosedError,
} from "../../errors/store-errors.js";
import type { SessionEvent } from "../../session/events.js";
import { type ConformanceContext, event, events, stored } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** Appends: numbering, optimistic concurrency, atomicity. */
export function defineAppendCases({ store }: ConformanceContext): void {
  describe("append", () => {
    it("creates a session with expectedLastSeq 0 and reads its events back in order, with sessionId", async () => {
      const batch = events(1, 3);
      await store().append("s1", batch, { expectedLastSeq: 0 });
      expect(await store().read("s1")).toEqual(stored("s1", batch));
      expect(await store().lastSeq("s1")).toBe(3);
      expect(await store().exists("s1")).toBe(true);
      expect(await store().get("s1")).toMatchObject({ sessionId: "s1", lastSeq: 3, eventCount: 3 });
    });

    it("keeps order and dense numbering over many appends of different sizes", async () => {
      let last = 0;
      for (let round = 1; round <= 20; round++) {
        const size = (round % 3) + 1;
        await store().append("s1", events(last + 1, size), { expectedLastSeq: last });
        last += size;
      }
      const read = await store().read("s1");
      expect(read.map((item) => item.seq)).toEqual(Array.from({ length: last }, (_, index) => index + 1));
      expect(read.map((item) => (item.data as { n: number }).n)).toEqual(read.map((item) => item.seq));
    });

    it("takes session ids with quotes, backslashes and SQL in them as plain text", async () => {
      const ids = ["it's", "back\\slash\\'", 'a"b', "x'); DROP TABLE events; --", "$$dollar$$", "E'\\x41'"];
      for (const id of ids) {
        await store().append(id, events(1, 2), { expectedLastSeq: 0 });
        await store().append(id, events(3, 1), { expectedLastSeq: 2 });
        expect(await store().read(id)).toEqual(stored(id, events(1, 3)));
        expect(await store().lastSeq(id)).toBe(3);
      }
      expect(await store().exists("it")).toBe(false);
      expect(await store().exists("x")).toBe(false);
      await expect(store().append(ids[0] as string, events(3, 1), { expectedLastSeq: 2 })).rejects.toBeInstanceOf(
        SessionConflictError,
      );
    });

    it("keeps runId when given and leaves it out when not", async () => {
      const withRun = { ...event(1), runId: "run-1" } as SessionEvent;
      await store().append("s1", [withRun, event(2)], { expectedLastSeq: 0 });
      const [first, second] = await store().read("s1");
      expect(first).toEqual({ ...withRun, sessionId: "s1" });
      expect(second).not.toHaveProperty("runId");
    });

    it("rejects events not numbered expectedLastSeq + 1, + 2, … and writes nothing", async () => {
      await expect(store().append("s1", [event(2)], { expectedLastSeq: 0 })).rejects.toBeInstanceOf(EventSequenceError);
      await expect(store().append("s1", [event(1), event(3)], { expectedLastSeq: 0 })).rejects.toMatchObject({
        code: "event_sequence",
        index: 1,
        expectedSeq: 2,
        actualSeq: 3,
      });
      await expect(store().append("s1", [event(1), event(1)], { expectedLastSeq: 0 })).rejects.toBeInstanceOf(
        EventSequenceError,
      );
      expect(await store().exists("s1")).toBe(false);
    });

    it("fails with SessionConflictError when the last seq is not expectedLastSeq, writing nothing", async () => {
      await store().append("s1", events(1, 2), { expectedLastSeq: 0 });
      const stale = store().append("s1", events(2, 1), { expectedLastSeq: 1 });
      await expect(stale).rejects.toBeInstanceOf(SessionConflictError);
      await expect(stale).rejects.toMatchObject({
        code: "session_conflict",
        fault: "conflict",
        sessionId: "s1",
        expectedLastSeq: 1,
        actualLastSeq: 2,
      });
      await expect(store().append("s1", events(6, 1), { expectedLastSeq: 5 })).rejects.toMatchObject({
        expectedLastSeq: 5,
        actualLastSeq: 2,
      });
      await expect(store().append("s1", events(1, 1), { expectedLastSeq: 0 })).rejects.toBeInstanceOf(
        SessionConflictError,
      );
      await expect(store().append("new", events(4, 1), { expectedLastSeq: 3 })).rejects.toMatchObject({
        actualLastSeq: 0,
      });
      expect(await store().read("s1")).toEqual(stored("s1", events(1, 2)));
      expect(await store().exists("new")).toBe(false);
    });

    it("lets exactly one of concurrent appends with the same expectedLastSeq win, without interleaving", async () => {
      let last = 0;
      for (let round = 0; round < 10; round++) {
        const writers = [0, 1, 2].map((writer) =>
          Array.from({ length: 3 }, (_, index) => event(last + index + 1, "note", { writer, round })),
        );
        const results = await Promise.allSettled(
          writers.map((batch) => store().append("race", batch, { expectedLastSeq: last })),
        );
        const winners = results.flatMap((result, writer) => (result.status === "fulfilled" ? [writer] : []));
        expect(winners).toHaveLength(1);
        for (const result of results) {
          if (result.status === "rejected") expect(result.reason).toBeInstanceOf(SessionConflictError);
        }
        const added = await store().read("race", { fromSeq: last + 1 });
        expect(added).toEqual(stored("race", writers[winners[0] as number] as SessionEvent[]));
        last += 3;
      }
      expect(await store().lastSeq("race")).toBe(30);
    });

    it("commits concurrent appends to many sessions, each acknowledged only once readable", async () => {
      const ids = Array.from({ length: 50 }, (_, index) => `parallel-${index}`);
      await Promise.all(
        ids.map(async (id) => {
          for (let seq = 1; seq <= 4; seq++) {
            await store().append(id, [event(seq)], { expectedLastSeq: seq - 1 });
            expect(await store().lastSeq(id)).toBe(seq);
          }
        }),
      );
      for (const id of ids) expect(await store().read(id)).toEqual(stored(id, events(1, 4)));
    });

    it("writes nothing for an empty batch but still checks expectedLastSeq", async () => {
      await store().append("s1", [], { expectedLastSeq: 0 });
      expect(await store().exists("s1")).toBe(false);
      await store().append("s1", events(1, 2), { expectedLastSeq: 0 });
      await store().append("s1", [], { expectedLastSeq: 2 });
      await expect(store().append("s1", [], { expectedLastSeq: 1 })).rejects.toBeInstanceOf(SessionConflictError);
      expect(await store().lastSeq("s1")).toBe(2);
    });

    it("rejects bad arguments with StoreArgumentError before writing", async () => {
      const bad = [
        () => store().append("", [event(1)], { expectedLastSeq: 0 }),
        () => store().append("a\u0000b", [event(1)], { expectedLastSeq: 0 }),
        () => store().append("s1", [event(1)], { expectedLastSeq: -1 }),
        () => store().append("s1", [{ ...event(1), sessionId: "other" } as SessionEvent], { expectedLastSeq: 0 }),
        () => store().append("s1", [{ ...event(1), type: "" } as SessionEvent], { expectedLastSeq: 0 }),
      ];
      for (const call of bad) await expect(call()).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await store().exists("s1")).toBe(false);
    });

    it("bounds session ids: at most 256 characters, no control or bidi characters; the error never echoes the id", async () => {
      const long = "x".repeat(100_000);
      const bad = [long, "x".repeat(257), "a\u001b[2Jb", "line\nbreak", "tab\tbed", "a\u202eb", "a\u0085b", "a\u2028b"];
      for (const id of bad) {
        const calls: (() => Promise<unknown>)[] = [
          () => store().append(id, [event(1)], { expectedLastSeq: 0 }),
          () => store().read(id),
          () => store().get(id),
          () => store().exists(id),
          () => store().fork("s-bound", { atSeq: 0, newSessionId: id }),
        ];
        for (const call of calls) {
          const error = await Promise.resolve()
            .then(() => call())
            .then(
              () => undefined,
              (caught: unknown) => caught,
            );
          expect(error, JSON.stringify(id).slice(0, 20)).toBeInstanceOf(StoreArgumentError);
          expect((error as Error).message.length).toBeLessThan(200);
        }
      }
      const longest = "y".repeat(256);
      await store().append(longest, [event(1)], { expectedLastSeq: 0 });
      expect((await store().get(longest))?.sessionId).toBe(longest);
      await store().append("ok-🌍 é:/._-@", [event(1)], { expectedLastSeq: 0 });
      expect(await store().exists("ok-🌍 é:/._-@")).toBe(true);
    });

    it("throws StoreClosedError after close, and close is idempotent", async () => {
      await store().append("s1", events(1, 1), { expectedLastSeq: 0 });
      await store().close();
      await store().close();
      await expect(store().read("s1")).rejects.toBeInstanceOf(StoreClosedError);
      await expect(store().append("s1", [event(2)], { expectedLastSeq: 1 })).rejects.toBeInstanceOf(StoreClosedError);
    });
  });
}
