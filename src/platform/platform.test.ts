import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeBuiltin, processEnv } from "./node-builtin.js";
import { randomUuid } from "./random-uuid.js";
import { portableSha256Hex, sha256Hex } from "./sha256.js";
import { base64ToUtf8, compareUtf8, utf8ToBase64 } from "./text-bytes.js";

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("sha256Hex", () => {
  it("gives the standard digests (FIPS 180-2 vectors)", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(portableSha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("is byte-identical to node:crypto for any text, native or portable (lone surrogates included)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        const expected = nodeSha256(text);
        expect(sha256Hex(text)).toBe(expected);
        expect(portableSha256Hex(text)).toBe(expected);
      }),
      { numRuns: 300 },
    );
    const long = "x".repeat(100_003);
    expect(portableSha256Hex(long)).toBe(nodeSha256(long));
  });
});

describe("randomUuid", () => {
  it("is a version 4 UUID, different each time", () => {
    const ids = new Set(Array.from({ length: 100 }, randomUuid));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("node built-ins without a static import", () => {
  it("reaches node:os and the environment on Node, read when called", () => {
    expect(nodeBuiltin<typeof import("node:os")>("node:os")?.hostname()).toBe(
      (process.getBuiltinModule("node:os") as typeof import("node:os")).hostname(),
    );
    process.env.NOUS_PLATFORM_TEST = "read late";
    expect(processEnv().NOUS_PLATFORM_TEST).toBe("read late");
    delete process.env.NOUS_PLATFORM_TEST;
  });
});

describe("text bytes", () => {
  it("encodes base64 and base64url as Buffer does, and decodes both", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        expect(utf8ToBase64(text)).toBe(Buffer.from(text, "utf8").toString("base64"));
        expect(utf8ToBase64(text, { url: true })).toBe(Buffer.from(text, "utf8").toString("base64url"));
        expect(base64ToUtf8(utf8ToBase64(text))).toBe(text);
        expect(base64ToUtf8(utf8ToBase64(text, { url: true }))).toBe(text);
      }),
    );
  });

  it("decodes leniently, as Buffer does (whitespace, missing padding, stray characters)", () => {
    const bytes = randomBytes(64);
    const base64 = bytes.toString("base64");
    const messy = `${base64.slice(0, 10)}\n ${base64.slice(10).replace(/=+$/, "")}`;
    expect(base64ToUtf8(messy)).toBe(Buffer.from(messy, "base64").toString("utf8"));
  });

  it("orders texts by their UTF-8 bytes, as Buffer.compare does", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (left, right) => {
        expect(Math.sign(compareUtf8(left, right))).toBe(
          Math.sign(Buffer.compare(Buffer.from(left, "utf8"), Buffer.from(right, "utf8"))),
        );
      }),
      { numRuns: 500 },
    );
    expect(compareUtf8("\u{1F600}", "\uFF5E")).toBeGreaterThan(0);
    expect(compareUtf8("ab", "abc")).toBeLessThan(0);
  });
});
