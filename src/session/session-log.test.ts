import { describe, expect, it } from "vitest";
import { SessionLog } from "./session-log.js";

describe("SessionLog", () => {
  it("numbers events densely from 1 and projects messages incrementally", () => {
    let log = SessionLog.empty();
    log = log.append("user_message", { content: "a" }, "t");
    log = log.append("audit", {}, "t");
    log = log.append("assistant_message", { content: [{ type: "text", text: "b" }] }, "t");
    expect(log.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(log.messages).toHaveLength(2);
    expect(log.nextSeq).toBe(4);
    expect(log.at(-1)?.type).toBe("assistant_message");
    expect([...log].length).toBe(3);
  });

  it("refuses an event out of sequence", () => {
    const log = SessionLog.empty().append("x", {}, "t");
    expect(() => log.appendEvent({ seq: 5, at: "t", type: "x", data: {} })).toThrow(RangeError);
  });

  it("appending n events is linear", () => {
    const time = (count: number) => {
      const start = performance.now();
      let log = SessionLog.empty();
      for (let index = 0; index < count; index++) {
        log = log.append(index % 2 ? "user_message" : "audit", { content: "x" }, "t");
        if (index % 10 === 0) void log.messages.length;
      }
      return performance.now() - start;
    };
    time(5_000);
    const small = Math.max(time(10_000), 0.5);
    const large = time(40_000);
    // Reading messages every 10 events is the per-turn pattern; linear would be ~4x, quadratic ~16x.
    expect(large / small).toBeLessThan(40);
  });
});
