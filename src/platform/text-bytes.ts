/**
 * UTF-8 and base64 helpers that behave as Node's `Buffer` does for text, without `Buffer` (which
 * browsers and edge runtimes lack): `TextEncoder`, `btoa` and `atob` exist everywhere.
 */

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
  const bytes = encoder.encode(text);
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  const base64 = btoa(binary);
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
  const cleaned = base64
    .replaceAll("-", "+")
    .replaceAll("_", "/")
    .replace(/[^A-Za-z0-9+/]/g, "");
  const usable = cleaned.length % 4 === 1 ? cleaned.slice(0, -1) : cleaned;
  const binary = atob(usable.padEnd(Math.ceil(usable.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return decoder.decode(bytes);
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
