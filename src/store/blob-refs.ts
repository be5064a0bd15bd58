import { BlobDamagedError } from "../errors/blob-damaged-error.js";
import { base64ToBytes, bytesToBase64 } from "../platform/binary-bytes.js";
import { binaryPartsOf, isBlobRefPart, isInlineBinaryPart, mapContentParts } from "../session/binary-parts.js";
import type { SessionEvent } from "../session/events.js";
import { type BlobInput, blobHash } from "./blob-store.js";
import type { SessionStore } from "./session-store.js";

/**
 * What blob references need of a store: its optional blob methods.
 *
 * @example
 * const blobs: BlobStore = new MemoryStore();
 */
export type BlobStore = Pick<SessionStore, "putBlob" | "getBlob">;

/**
 * Writes the binary content of `events` to the store's blobs and returns the events as they are to
 * be recorded: each image, file or audio part's base64 `data` replaced by `blob` (its hash) and
 * `size` (its byte count), every other field kept. Resolves only once every blob is stored, so an
 * event is never committed before what it refers to (after a crash there is no dangling reference;
 * at worst a blob no event refers to). The same bytes are stored once, whatever number of events
 * or sessions hold them. A store without `putBlob` gets the events unchanged (binary inline).
 *
 * @example
 * const recorded = await externalizeBlobs(store, events);
 * await store.append(sessionId, recorded, { expectedLastSeq });
 */
export async function externalizeBlobs(store: BlobStore, events: readonly SessionEvent[]): Promise<SessionEvent[]> {
  if (store.putBlob === undefined) return [...events];
  const blobs = new Map<string, BlobInput>();
  const recorded = events.map((event) => {
    const data = mapContentParts(event.type, event.data, (part) => {
      if (!isInlineBinaryPart(part)) return part;
      const bytes = base64ToBytes(part.data);
      const hash = blobHash(bytes);
      if (!blobs.has(hash)) blobs.set(hash, { hash, mediaType: part.mediaType ?? "application/octet-stream", bytes });
      const ref: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(part)) {
        if (key === "data") {
          ref.blob = hash;
          ref.size = bytes.byteLength;
        } else ref[key] = value;
      }
      return ref;
    });
    return data === event.data ? event : ({ ...event, data } as SessionEvent);
  });
  for (const blob of blobs.values()) await store.putBlob(blob);
  return recorded;
}

/**
 * `events` read from a store with every blob reference resolved back to base64 `data` (the part as
 * it was appended, field order included), so they are what the run recorded: what `rebuildRequest`,
 * `projectMessages` and a provider need. Returns `events` itself when none refers to a blob. A
 * blob the store does not hold (or a store without `getBlob`) is a `BlobDamagedError`
 * (`"blob_missing"`); bytes that do not match their hash, `"blob_mismatch"`. A session run resolves
 * its log this way when it starts; call it on what `store.read` returns.
 *
 * @example
 * const log = await resolveBlobs(store, await store.read("u42"));
 * rebuildRequest(log, 3); // the exact body, image data included
 * projectMessages(log); // messages with their images' data
 */
export async function resolveBlobs(store: BlobStore, events: readonly SessionEvent[]): Promise<SessionEvent[]> {
  const hashes = new Set<string>();
  for (const event of events) {
    for (const part of binaryPartsOf(event.type, event.data)) if (isBlobRefPart(part)) hashes.add(part.blob);
  }
  if (hashes.size === 0) return events as SessionEvent[];
  const data = new Map<string, string>();
  for (const hash of hashes) {
    const blob = store.getBlob === undefined ? undefined : await store.getBlob(hash);
    if (blob === undefined) {
      throw new BlobDamagedError({
        backend: backendOf(store),
        operation: "resolveBlobs",
        hash,
        damage: "blob_missing",
      });
    }
    data.set(hash, bytesToBase64(blob.bytes));
  }
  return events.map((event) => {
    const resolved = mapContentParts(event.type, event.data, (part) => {
      if (!isBlobRefPart(part)) return part;
      const inline: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(part)) {
        if (key === "blob") inline.data = data.get(part.blob);
        else if (key !== "size") inline[key] = value;
      }
      return inline;
    });
    return resolved === event.data ? event : ({ ...event, data: resolved } as SessionEvent);
  });
}

/**
 * The first event of `events` that refers to a blob the store lacks or holds damaged, with what is
 * wrong; `undefined` when every referenced blob is sound. `checked` remembers blobs across calls
 * (one verification reads each blob once).
 */
export async function firstBlobDamage(
  store: BlobStore,
  events: readonly SessionEvent[],
  checked: Map<string, "blob_missing" | "blob_mismatch" | "ok">,
): Promise<{ seq: number; hash: string; damage: "blob_missing" | "blob_mismatch" } | undefined> {
  for (const event of events) {
    for (const part of binaryPartsOf(event.type, event.data)) {
      if (!isBlobRefPart(part)) continue;
      let state = checked.get(part.blob);
      if (state === undefined) {
        state = await blobState(store, part.blob);
        checked.set(part.blob, state);
      }
      if (state !== "ok") return { seq: event.seq, hash: part.blob, damage: state };
    }
  }
  return undefined;
}

async function blobState(store: BlobStore, hash: string): Promise<"blob_missing" | "blob_mismatch" | "ok"> {
  if (store.getBlob === undefined) return "blob_missing";
  try {
    return (await store.getBlob(hash)) === undefined ? "blob_missing" : "ok";
  } catch (error) {
    if (error instanceof BlobDamagedError) return error.damage;
    throw error;
  }
}

function backendOf(store: BlobStore): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && /^[A-Z]\w*Store$/.test(name) ? name.slice(0, -5).toLowerCase() : "custom";
}
