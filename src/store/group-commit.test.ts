import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-errors.js";
import { GroupCommit } from "./group-commit.js";

describe("GroupCommit", () => {
  it("commits items submitted together in one batch, each settling with its own outcome", async () => {
    const batches: string[][] = [];
    const group = new GroupCommit<string>({
      start: "next-turn",
      commit: async (items) => {
        batches.push([...items]);
        return items.map((item) => (item === "bad" ? new Error(`refused ${item}`) : undefined));
      },
    });
    const outcomes = await Promise.allSettled([group.submit("a"), group.submit("bad"), group.submit("c")]);
    expect(batches).toEqual([["a", "bad", "c"]]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("a failed batch rejects every caller with its own copy of the error (each run attaches its own log)", async () => {
    const failure = new StoreError({ backend: "sqlite", operation: "append", cause: new Error("disk full") });
    const group = new GroupCommit<number>({
      start: "next-turn",
      commit: async () => {
        throw failure;
      },
    });
    const errors = await Promise.all([1, 2, 3].map((item) => group.submit(item).catch((error: unknown) => error)));
    expect(new Set(errors).size).toBe(3);
    for (const error of errors) {
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).message).toBe(failure.message);
      expect((error as StoreError).code).toBe("store_failure");
    }
    Object.defineProperty(errors[1], "log", { value: ["run 2"] });
    expect((errors[2] as { log?: unknown }).log).toBeUndefined();
  });
});
