// The store contract and the in-memory store. The SQLite and PostgreSQL stores live behind their
// own entry points (src/sqlite.ts, src/postgres.ts) so this folder's index never loads a driver.
export { type BlobStore, externalizeBlobs, resolveBlobs } from "./blob-refs.js";
export { type BlobInput, blobHash, type StoredBlob } from "./blob-store.js";
export { MemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export {
  type AcquireLeaseOptions,
  type AppendOptions,
  type ForkOptions,
  type Lease,
  type ListFilter,
  type ReadOptions,
  SESSION_STATUSES,
  type SessionPage,
  type SessionStatus,
  type SessionStore,
  type SessionSummary,
} from "./session-store.js";
export { identifierProblem, MAX_IDENTIFIER_LENGTH } from "./store-arguments.js";
export type { SessionVerification, StorageCheck, StoreVerification } from "./store-verify.js";
