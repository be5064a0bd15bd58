import type { Pool } from "pg";
import { type BlobInput, checkBlobHash, checkBlobInput, type StoredBlob, verifiedBlob } from "./blob-store.js";

/**
 * Stores bytes once by hash in a PostgreSQL store's `blobs` table (see `SessionStore.putBlob`): a
 * put of bytes already stored writes nothing. Autocommit, so durable before the append that
 * refers to the blob starts.
 */
export async function putPostgresBlob(pool: Pool, table: string, blob: BlobInput): Promise<void> {
  const bytes = checkBlobInput(blob);
  await pool.query(
    `INSERT INTO ${table} (hash, media_type, size, bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO NOTHING`,
    [blob.hash, blob.mediaType, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
  );
}

/** The blob stored under `hash` in a PostgreSQL store, checked against it (see `SessionStore.getBlob`). */
export async function getPostgresBlob(pool: Pool, table: string, hash: string): Promise<StoredBlob | undefined> {
  checkBlobHash(hash);
  const { rows } = await pool.query<{ mediaType: string; bytes: Buffer }>(
    `SELECT media_type AS "mediaType", bytes FROM ${table} WHERE hash = $1`,
    [hash],
  );
  const row = rows[0];
  return row === undefined ? undefined : verifiedBlob("postgres", { hash, mediaType: row.mediaType, bytes: row.bytes });
}
