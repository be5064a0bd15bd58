/**
 * A random (version 4) UUID from the Web Crypto API every supported runtime has
 * (`globalThis.crypto`: Node ≥ 19, Bun, Deno, browsers, edge workers). `randomUUID` exists only in
 * secure contexts in a browser; elsewhere the same UUID is built from `getRandomValues`.
 *
 * @example
 * randomUuid(); // "3b241101-e2bb-4255-8caf-4136c566a962"
 */
export function randomUuid(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
