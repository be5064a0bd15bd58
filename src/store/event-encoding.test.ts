import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventNotSerializableError } from "../errors/store-errors.js";
import type { SessionEvent } from "../session/events.js";
import { decodeEvent, encodeEvent } from "./event-encoding.js";

const at = "2025-01-01T00:00:00.000Z";
const eventWith = (data: unknown) => ({ seq: 7, at, type: "audit", data }) as SessionEvent;

describe("encodeEvent / decodeEvent", () => {
  it("round-trips any JSON value exactly, key order included", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (data) => {
        const decoded = decodeEvent("s", encodeEvent(eventWith(data)));
        expect(JSON.stringify(decoded.data)).toBe(JSON.stringify(data));
        expect(decoded.data).toEqual(JSON.parse(JSON.stringify(data)));
      }),
      { numRuns: 300 },
    );
  });

  it("reports nesting too deep for the stack as a serialization error, not a RangeError", () => {
    let deep: unknown = "leaf";
    for (let depth = 0; depth < 200_000; depth++) deep = [deep];
    expect(() => encodeEvent(eventWith(deep))).toThrow(EventNotSerializableError);
  });

  it("checks what toJSON returns, and rejects lossy built-ins", () => {
    const sneaky = { toJSON: () => ({ inner: () => 1 }) };
    expect(() => encodeEvent(eventWith({ sneaky }))).toThrow(/data\.sneaky\.inner: a function/);
    expect(() => encodeEvent(eventWith({ error: new Error("x") }))).toThrow(/data\.error: an Error/);
    expect(() => encodeEvent(eventWith({ bytes: new Uint8Array(2) }))).toThrow(/typed array/);
    expect(() => encodeEvent(eventWith({ "odd key": { set: new Set() } }))).toThrow(/data\["odd key"\]\.set: a Set/);
  });
});
