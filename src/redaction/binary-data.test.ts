import { describe, expect, it } from "vitest";
import { redact } from "./redact.js";
import { registerSecret } from "./secret-registry.js";

describe("redaction and binary content", () => {
  it("leaves the base64 data of image, file and audio parts alone, and redacts the text beside it", () => {
    // A "secret" made of base64 characters, found by chance inside an image's bytes.
    const secret = "QUJDREVGR0hJSktMTU5P";
    registerSecret(secret);
    const data = `iVBORw0KGgo${secret}AAAA`;
    const content = [
      { type: "text", text: `my code is ${secret}` },
      { type: "image", data, mediaType: "image/png" },
      { type: "file", data, mediaType: "application/pdf", filename: `${secret}.pdf` },
      { type: "audio", data, mediaType: "audio/wav" },
    ];
    const redacted = redact({ content }) as unknown as { content: Record<string, string>[] };
    expect(redacted.content.map((part) => part.data)).toEqual([undefined, data, data, data]);
    expect(redacted.content[0]?.text).not.toContain(secret);
    expect(redacted.content[2]?.filename).not.toContain(secret); // only the bytes are exempt
    // A `data` string outside a binary part is text, and redacted.
    expect(JSON.stringify(redact({ type: "note", data: secret }))).not.toContain(secret);
  });
});
