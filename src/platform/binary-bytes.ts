import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { nodeBuiltin } from "./node-builtin.js";

type NodeCrypto = typeof import("node:crypto");

/**
 * The bytes a base64 (or base64url) string holds. Lenient as `Buffer` is: both alphabets, padding
 * optional, whitespace ignored.
 *
 * @example
 * base64ToBytes("aGk="); // Uint8Array [104, 105]
 */
export function base64ToBytes(base64: string): Uint8Array {
  const cleaned = base64
    .replaceAll("-", "+")
    .replaceAll("_", "/")
    .replace(/[^A-Za-z0-9+/]/g, "");
  const usable = cleaned.length % 4 === 1 ? cleaned.slice(0, -1) : cleaned;
  const binary = atob(usable.padEnd(Math.ceil(usable.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The standard, padded base64 of `bytes`.
 *
 * @example
 * bytesToBase64(new Uint8Array([104, 105])); // "aGk="
 */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/**
 * SHA-256 of raw bytes as 64 hex digits: Node's native hash where reachable, else `@noble/hashes`.
 *
 * @example
 * sha256BytesHex(new Uint8Array()); // "e3b0c442…b855"
 */
export function sha256BytesHex(bytes: Uint8Array): string {
  const crypto = nodeBuiltin<NodeCrypto>("node:crypto");
  if (typeof crypto?.createHash === "function") return crypto.createHash("sha256").update(bytes).digest("hex");
  return bytesToHex(sha256(bytes));
}
