import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../session/events.js";
import { MemoryStore } from "../store/memory-store.js";
import { EventCache } from "./event-cache.js";

const at = "2026-01-05T10:00:00.000Z";
const user = (seq: number, content: string): SessionEvent => ({ seq, at, type: "user_message", data: { content } });

describe("the inspector's event cache", () => {
  it("tops up with appended events, and reads again a session deleted and recreated", async () => {
    const store = new MemoryStore();
    const cache = new EventCache(store, 1);
    await store.append("a", [user(1, "one")], { expectedLastSeq: 0 });
    expect((await cache.read("a")).map((event) => event.seq)).toEqual([1]);
    await store.append("a", [user(2, "two"), user(3, "three")], { expectedLastSeq: 1 });
    expect((await cache.read("a")).map((event) => event.seq)).toEqual([1, 2, 3]);

    // Recreated with as many events: only its createdAt tells it apart.
    await store.delete("a");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.append("a", [user(1, "new"), user(2, "x"), user(3, "y")], { expectedLastSeq: 0 });
    expect((await cache.read("a"))[0]?.data).toEqual({ content: "new" });
    await store.delete("a");
    expect(await cache.read("a")).toEqual([]);
    await store.append("a", [user(1, "again")], { expectedLastSeq: 0 });

    // Size 1: reading another session evicts "a"; reading "a" again still gives its events.
    await store.append("b", [user(1, "b")], { expectedLastSeq: 0 });
    expect(await cache.read("b")).toHaveLength(1);
    expect(await cache.read("a")).toHaveLength(1);
  });
});
