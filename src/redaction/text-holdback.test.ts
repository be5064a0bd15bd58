import { beforeEach, describe, expect, it } from "vitest";
import { secretPlaceholder } from "./placeholder.js";
import { forgetSecretsForTesting, registerSecret } from "./secret-registry.js";
import { TextHoldback } from "./text-holdback.js";

const KEY = "sk-live-0123456789";

beforeEach(() => forgetSecretsForTesting());

describe("TextHoldback", () => {
  it("catches a secret split across pieces, however the text is cut", () => {
    registerSecret(KEY);
    const text = `before ${KEY} middle ${KEY}after`;
    for (let size = 1; size <= text.length; size++) {
      const holdback = new TextHoldback();
      let shown = "";
      for (let at = 0; at < text.length; at += size) shown += holdback.push(text.slice(at, at + size));
      shown += holdback.flush();
      expect(shown).toBe(`before ${secretPlaceholder(KEY)} middle ${secretPlaceholder(KEY)}after`);
    }
  });

  it("holds back at most the longest secret less one character", () => {
    registerSecret(KEY);
    const holdback = new TextHoldback();
    expect(holdback.push("a".repeat(40))).toBe("a".repeat(40 - (KEY.length - 1)));
    expect(holdback.flush()).toBe("a".repeat(KEY.length - 1));
  });

  it("holds nothing back while no secret is registered", () => {
    const holdback = new TextHoldback();
    expect(holdback.push("hello")).toBe("hello");
    expect(holdback.holding).toBe(false);
  });
});
