import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { nodeBuiltin } from "./node-builtin.js";

type NodeCrypto = typeof import("node:crypto");
type Hasher = (text: string) => string;

/** The pure-JS SHA-256 (browsers, edge runtimes): the same digest, byte for byte. */
export const portableSha256Hex: Hasher = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/** The fastest SHA-256 the runtime has, chosen once, on first use. */
function nativeOrPortable(): Hasher {
  const crypto = nodeBuiltin<NodeCrypto>("node:crypto");
  // One-shot hash (Node ≥ 20.12, Bun, Deno): about twice as fast as createHash for short texts.
  if (typeof crypto?.hash === "function") return (text) => crypto.hash("sha256", text, "hex");
  if (typeof crypto?.createHash === "function") {
    return (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");
  }
  return portableSha256Hex;
}

let hasher: Hasher | undefined;

/**
 * SHA-256 of a text's UTF-8 bytes, as 64 hex digits, synchronously, on every runtime: Node's native
 * hash where `node:crypto` is reachable without a static import, else `@noble/hashes` (lone
 * surrogates become U+FFFD in both, so the digests are identical everywhere).
 *
 * @example
 * sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 */
export function sha256Hex(text: string): string {
  hasher ??= nativeOrPortable();
  return hasher(text);
}
