import { beforeEach, describe, expect, it } from "vitest";
import { secretPlaceholder } from "./placeholder.js";
import { redact } from "./redact.js";
import { forgetSecretsForTesting, registerSecret } from "./secret-registry.js";

const SECRET = "QUJDREVGR0hJSktM";

beforeEach(() => {
  forgetSecretsForTesting();
  registerSecret(SECRET);
});

/** About 4 MB of base64 with the secret's characters in its middle, as a chance match would put them. */
function bigBase64(): string {
  const half = "iVBORw0KGgoAAAANSUhEUgAA".repeat(87_000);
  return `${half}${SECRET}${half}`;
}

describe("redaction of image, file and audio parts", () => {
  it("leaves the base64 data of binary parts as it is (the same object back), at any size", () => {
    const data = bigBase64();
    const event = {
      toolCallId: "call_1",
      result: "ok",
      content: [
        { type: "image", data, mediaType: "image/png" },
        { type: "audio", data, mediaType: "audio/wav" },
        { type: "file", data, mediaType: "application/pdf", filename: "a.pdf" },
      ],
    };
    expect(redact(event)).toBe(event);
  });

  it("still redacts text parts, URLs in data, filenames, and look-alikes that are not content parts", () => {
    const redacted = redact({
      content: [
        { type: "text", text: `key ${SECRET}` },
        { type: "image", data: `https://example.com/a.png?token=${SECRET}`, mediaType: "image/png" },
        { type: "file", data: `data:text/plain,${SECRET}`, mediaType: "text/plain", filename: `${SECRET}.txt` },
        { type: "image", data: SECRET },
        { type: "note", data: SECRET, mediaType: "text/plain" },
      ],
    });
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(SECRET);
    expect(text.split(secretPlaceholder(SECRET)).length - 1).toBe(6);
  });
});
