/**
 * Test support: damages stored bytes the way a bad disk, a stray editor or a buggy tool would, to
 * check that the stores notice.
 */
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Replaces the one occurrence of `search` in the file with `replacement` (same byte length, so the
 * file's layout is unchanged: only the bytes change, as a flipped bit on disk would).
 */
export function replaceBytesInFile(path: string, search: string, replacement: string): void {
  const bytes = readFileSync(path);
  const needle = Buffer.from(search, "utf8");
  const patch = Buffer.from(replacement, "utf8");
  if (needle.length !== patch.length) throw new Error("the replacement must have the same byte length");
  const at = bytes.indexOf(needle);
  if (at < 0) throw new Error(`"${search}" not found in ${path}`);
  if (bytes.indexOf(needle, at + 1) >= 0) throw new Error(`"${search}" occurs more than once in ${path}`);
  patch.copy(bytes, at);
  writeFileSync(path, bytes);
}

/** The at-time every test event carries. */
export const AT = "2025-01-02T03:04:05.678Z";

/** A bookkeeping event with the given data. */
export function note(seq: number, data: unknown) {
  return { seq, at: AT, type: "note", data } as const;
}

/** Five notes; seq 3 carries a payment of 1000 with a recognisable memo. */
export function paymentSession() {
  return [
    note(1, { step: "start" }),
    note(2, { step: "lookup", customer: "c-17" }),
    note(3, { amount: 1000, memo: "pay-invoice-4711" }),
    note(4, { step: "notify" }),
    note(5, { step: "done" }),
  ];
}
