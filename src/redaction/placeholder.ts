import { sha256Hex } from "../platform/sha256.js";

const cache = new Map<string, string>();

/**
 * What a secret is recorded as: `[secret:sha256:` + the first 12 hex digits of the SHA-256 of its
 * UTF-8 bytes + `]`. The hash lets a reader tell two secrets apart (or match one they hold) without
 * the record holding the value.
 *
 * @example
 * secretPlaceholder("sk-test-123456"); // "[secret:sha256:…12 hex…]"
 */
export function secretPlaceholder(value: string): string {
  let placeholder = cache.get(value);
  if (placeholder === undefined) {
    placeholder = `[secret:sha256:${sha256Hex(value).slice(0, 12)}]`;
    if (cache.size < 10_000) cache.set(value, placeholder);
  }
  return placeholder;
}
