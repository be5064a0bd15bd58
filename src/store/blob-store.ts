import { BlobDamagedError } from "../errors/blob-damaged-error.js";
import { StoreArgumentError } from "../errors/store-errors.js";
import { sha256BytesHex } from "../platform/binary-bytes.js";

/**
 * Bytes to store once by their hash (`SessionStore.putBlob`): the binary content (an image, a file)
 * of a part of a surface event, which the event refers to as `blob: hash`.
 *
 * @example
 * const bytes = new Uint8Array(await readFile("chart.png"));
 * await store.putBlob?.({ hash: blobHash(bytes), mediaType: "image/png", bytes });
 */
export interface BlobInput {
  /** `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes` (see `blobHash`). */
  readonly hash: string;
  /** The media type the bytes were first stored with (`image/png`). */
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

/**
 * A blob as `SessionStore.getBlob` returns it: its bytes checked against its hash on the way out.
 *
 * @example
 * const blob = await store.getBlob?.("sha256:9f86…");
 * if (blob) writeFileSync("out.png", blob.bytes);
 */
export interface StoredBlob {
  readonly hash: string;
  readonly mediaType: string;
  /** The number of bytes. */
  readonly size: number;
  readonly bytes: Uint8Array;
}

const HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * The name of `bytes` in a store: `sha256:` and the hex SHA-256 of the bytes.
 *
 * @example
 * blobHash(new TextEncoder().encode("test")); // "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
 */
export function blobHash(bytes: Uint8Array): string {
  return `sha256:${sha256BytesHex(bytes)}`;
}

/** Refuses (`StoreArgumentError`) a hash that is not `sha256:<64 lowercase hex>`. */
export function checkBlobHash(hash: unknown): asserts hash is string {
  if (typeof hash !== "string" || !HASH.test(hash)) {
    throw new StoreArgumentError({
      argument: "hash",
      detail: `expected "sha256:" and 64 lowercase hex digits, got ${JSON.stringify(hash)}`,
    });
  }
}

/**
 * Checks a `putBlob` argument before anything is written: a well-formed hash that is the hash of
 * the bytes, bytes as a `Uint8Array`, a media type (`StoreArgumentError` otherwise). Returns the
 * bytes as a plain `Uint8Array` (a `Buffer` is one too).
 */
export function checkBlobInput(blob: BlobInput): Uint8Array {
  if (typeof blob !== "object" || blob === null) {
    throw new StoreArgumentError({ argument: "blob", detail: "expected { hash, mediaType, bytes }" });
  }
  checkBlobHash(blob.hash);
  if (!(blob.bytes instanceof Uint8Array)) {
    throw new StoreArgumentError({ argument: "bytes", detail: "expected a Uint8Array" });
  }
  if (typeof blob.mediaType !== "string") {
    throw new StoreArgumentError({ argument: "mediaType", detail: "expected a string" });
  }
  const actual = blobHash(blob.bytes);
  if (actual !== blob.hash) {
    throw new StoreArgumentError({ argument: "hash", detail: `${blob.hash} is not the hash of the bytes (${actual})` });
  }
  return blob.bytes;
}

/**
 * A blob read back from a backend, its bytes checked against its name: `BlobDamagedError`
 * (`"blob_mismatch"`) when they do not hash to it.
 */
export function verifiedBlob(
  backend: string,
  row: { readonly hash: string; readonly mediaType: string; readonly bytes: Uint8Array },
): StoredBlob {
  const bytes = new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  if (blobHash(bytes) !== row.hash) {
    throw new BlobDamagedError({ backend, operation: "getBlob", hash: row.hash, damage: "blob_mismatch" });
  }
  return { hash: row.hash, mediaType: row.mediaType, size: bytes.byteLength, bytes };
}
