import { containsSecret, longestSecretLength, redactText, secretPattern } from "./secret-registry.js";

/**
 * Redacts text that arrives in pieces (stream deltas), where a secret may be split across two
 * pieces: each `push` returns what is safe to show now, holding back the last (longest secret − 1)
 * characters until the next piece or `flush`. A complete secret found across the cut is shown
 * (redacted) whole rather than held.
 *
 * @example
 * const holdback = new TextHoldback();
 * holdback.push("key: sk-live-01"); // "key: " … the rest may be the start of a secret
 * holdback.push("23456789 ok") + holdback.flush(); // "[secret:sha256:…] ok" (once registered)
 */
export class TextHoldback {
  #held = "";

  /** True while text is held back. */
  get holding(): boolean {
    return this.#held !== "";
  }

  /** What of `held + text` is safe to show now, redacted. */
  push(text: string): string {
    const keep = longestSecretLength() - 1;
    const buffer = this.#held + text;
    if (keep <= 0) {
      this.#held = "";
      return redactText(buffer);
    }
    let cut = buffer.length - keep;
    if (cut <= 0) {
      this.#held = buffer;
      return "";
    }
    if (containsSecret(buffer)) {
      const pattern = secretPattern();
      for (let found = pattern.exec(buffer); found !== null; found = pattern.exec(buffer)) {
        const end = found.index + found[0].length;
        if (found.index >= cut) break;
        if (end > cut) cut = end;
      }
    }
    this.#held = buffer.slice(cut);
    return redactText(buffer.slice(0, cut));
  }

  /** Everything still held back, redacted; nothing is held afterwards. */
  flush(): string {
    const rest = redactText(this.#held);
    this.#held = "";
    return rest;
  }

  /** Drops what is held back (the stream restarted). */
  discard(): void {
    this.#held = "";
  }
}
