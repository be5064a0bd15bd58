import { StoreError } from "./store-errors.js";

/**
 * A binary blob an event refers to (an image or file part stored by hash, `blob: "sha256:…"`) is
 * not in the store (`damage: "blob_missing"`: deleted behind the store's back, or a store that
 * keeps no blobs), or its stored bytes no longer hash to its name (`"blob_mismatch"`). Raised when
 * the blob is read (`getBlob`, `resolveBlobs`, a run resuming the session); `store.verify()` reports
 * it as damage of the event that refers to it. The event itself is intact (its checksum covers the
 * reference): restore the blob from a backup, or fork the session before the event.
 *
 * @example
 * try { await resolveBlobs(store, await store.read("s1")) } catch (error) {
 *   if (error instanceof BlobDamagedError) console.error(error.hash, error.damage);
 * }
 */
export class BlobDamagedError extends StoreError {
  override readonly code = "blob_damaged" as const;
  /** The blob's name, `sha256:<64 hex>`. */
  readonly hash: string;
  readonly damage: "blob_missing" | "blob_mismatch";

  constructor(fields: { backend: string; operation: string; hash: string; damage: "blob_missing" | "blob_mismatch" }) {
    super({
      backend: fields.backend,
      operation: fields.operation,
      cause: undefined,
      message:
        fields.damage === "blob_missing"
          ? `The ${fields.backend} session store does not hold blob ${fields.hash}`
          : `The ${fields.backend} session store holds damaged bytes for blob ${fields.hash}: they do not hash to its name`,
    });
    this.hash = fields.hash;
    this.damage = fields.damage;
  }
}
