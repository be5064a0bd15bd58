import { type BlobInput, checkBlobHash, checkBlobInput, type StoredBlob, verifiedBlob } from "./blob-store.js";
import type { SqliteStatement } from "./sqlite-driver.js";

/**
 * The `blobs` table of a SQLite store: binary content once by hash, for every session. A put of
 * bytes already stored writes nothing (`ON CONFLICT DO NOTHING`), in its own autocommit statement,
 * so it is durable before the append that refers to it starts.
 */
export class SqliteBlobs {
  readonly #statement: (sql: string) => SqliteStatement;
  readonly #now: () => number;

  constructor(statement: (sql: string) => SqliteStatement, now: () => number) {
    this.#statement = statement;
    this.#now = now;
  }

  put(blob: BlobInput): void {
    const bytes = checkBlobInput(blob);
    this.#statement(
      "INSERT INTO blobs (hash, media_type, size, bytes, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING",
    ).run(blob.hash, blob.mediaType, bytes.byteLength, bytes, this.#now());
  }

  get(hash: string): StoredBlob | undefined {
    checkBlobHash(hash);
    const row = this.#statement("SELECT media_type AS mediaType, bytes FROM blobs WHERE hash = ?").get<{
      mediaType: string;
      bytes: Uint8Array;
    }>(hash);
    return row === undefined ? undefined : verifiedBlob("sqlite", { hash, mediaType: row.mediaType, bytes: row.bytes });
  }
}
