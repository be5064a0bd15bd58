/**
 * UTF-8 and base64 helpers that behave as Node's `Buffer` does for text, without `Buffer` (which
 * browsers and edge runtimes lack): `TextEncoder`, `btoa` and `atob` exist everywhere.
 */

import { base64ToBytes, bytesToBase64 } from "./binary-bytes.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The base64 (or base64url, unpadded) of a text's UTF-8 bytes.
 *
 * @example
 * utf8ToBase64("hé"); // "aMOp"
 * utf8ToBase64('[0,"s1"]', { url: true }); // "WzAsInMxIl0"
 */
export function utf8ToBase64(text: string, options: { url?: boolean } = {}): string {
  const base64 = bytesToBase64(encoder.encode(text));
  return options.url ? base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "") : base64;
}

/**
 * The text whose UTF-8 bytes a base64 or base64url string holds. Lenient as `Buffer` is: both
 * alphabets, padding optional, whitespace and other characters ignored; bytes that are not UTF-8
 * become U+FFFD.
 *
 * @example
 * base64ToUtf8("aMOp"); // "hé"
 */
export function base64ToUtf8(base64: string): string {
  return decoder.decode(base64ToBytes(base64));
}

/**
 * Compares two texts by their UTF-8 bytes (what `Buffer.compare` and SQL `BINARY` collation do),
 * which is code point order: UTF-16 units order differently only where a surrogate meets a unit
 * above U+DFFF, so those two ranges swap places.
 *
 * @example
 * ["\u{1F600}", "\uFF5E"].sort(compareUtf8); // ["\uFF5E", "\u{1F600}"]
 */
export function compareUtf8(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return codePointRank(a) - codePointRank(b);
  }
  return left.length - right.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}
