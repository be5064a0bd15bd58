import { StoreArgumentError } from "../../errors/store-errors.js";
import { bytesToBase64 } from "../../platform/binary-bytes.js";
import { resolveBlobs } from "../blob-refs.js";
import { type BlobInput, blobHash, type StoredBlob } from "../blob-store.js";
import type { StoreVerification } from "../store-verify.js";
import { type ConformanceContext, event } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** Bytes of every value 0 … 255, then `tag` (so two blobs differ), as a blob input. */
function blob(tag: number, mediaType = "image/png"): BlobInput {
  const bytes = new Uint8Array(260);
  for (let index = 0; index < 256; index++) bytes[index] = index;
  bytes.set([tag, 0, 255, tag], 256);
  return { hash: blobHash(bytes), mediaType, bytes };
}

/** A user message whose image part refers to `input` by hash, as a session run records it. */
function imageMessage(seq: number, input: BlobInput) {
  return event(seq, "user_message", {
    content: [
      { type: "text", text: `look ${seq}` },
      { type: "image", mediaType: input.mediaType, blob: input.hash, size: input.bytes.byteLength },
    ],
  });
}

/**
 * Binary content once by hash (`putBlob`, `getBlob`), shared by sessions and forks; events refer to
 * it and `verify` checks what they refer to. A store without blob support fails this group (and
 * keeps binary parts inline in events; exclude it with `only`).
 */
export function defineBlobCases({ store, reopen }: ConformanceContext): void {
  describe("blobs", () => {
    const methods = () => {
      const { putBlob, getBlob } = store();
      if (putBlob === undefined || getBlob === undefined)
        throw new Error("the store does not implement putBlob/getBlob");
      return {
        put: (input: BlobInput) => putBlob.call(store(), input),
        get: (hash: string): Promise<StoredBlob | undefined> => getBlob.call(store(), hash),
      };
    };
    const verify = (sessionId?: string): Promise<StoreVerification> => {
      const method = store().verify;
      if (method === undefined) throw new Error("the store does not implement verify");
      return method.call(store(), sessionId);
    };

    it("stores bytes by hash and reads them back exactly; a missing blob is undefined", async () => {
      const { put, get } = methods();
      const input = blob(1);
      await put(input);
      const read = await get(input.hash);
      expect(read).toMatchObject({ hash: input.hash, mediaType: "image/png", size: 260 });
      expect([...(read?.bytes ?? [])]).toEqual([...input.bytes]);
      expect(await get(blob(2).hash)).toBeUndefined();
      const empty = new Uint8Array();
      await put({ hash: blobHash(empty), mediaType: "application/octet-stream", bytes: empty });
      expect(await get(blobHash(empty))).toMatchObject({ size: 0 });
      if (reopen !== undefined) {
        await reopen();
        expect([...((await methods().get(input.hash))?.bytes ?? [])]).toEqual([...input.bytes]);
      }
    });

    it("is idempotent: the same bytes put again (another media type too) keep the first blob", async () => {
      const { put, get } = methods();
      const input = blob(3);
      await Promise.all([put(input), put(input)]);
      await put(input);
      await put({ ...input, mediaType: "application/octet-stream", bytes: input.bytes.slice() });
      expect(await get(input.hash)).toMatchObject({ hash: input.hash, mediaType: "image/png", size: 260 });
    });

    it("refuses a hash that is not the bytes' own, or malformed, and writes nothing", async () => {
      const { put, get } = methods();
      const input = blob(4);
      const other = blob(5);
      await expect(put({ ...input, hash: other.hash })).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await get(other.hash)).toBeUndefined();
      await expect(put({ ...input, hash: input.hash.toUpperCase() })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(get("md5:abc")).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it("serves one blob to every session and fork that refers to it; verify checks them", async () => {
      const { put } = methods();
      const input = blob(6);
      await put(input);
      await store().append("a", [imageMessage(1, input), imageMessage(2, input)], { expectedLastSeq: 0 });
      await store().append("b", [imageMessage(1, input)], { expectedLastSeq: 0 });
      await store().fork("a", { atSeq: 1, newSessionId: "a-fork" });
      expect(await store().delete("a")).toBe(true);
      expect(await verify()).toMatchObject({ ok: true, checkedSessions: 2, damagedSessions: 0 });
      const [resolved] = await resolveBlobs(store(), await store().read("a-fork"));
      expect(resolved?.data).toEqual({
        content: [
          { type: "text", text: "look 1" },
          { type: "image", mediaType: "image/png", data: bytesToBase64(input.bytes) },
        ],
      });
    });

    it("reports an event that refers to a blob the store lacks as damage, and still reads it", async () => {
      const { put } = methods();
      const present = blob(7);
      const absent = blob(8);
      await put(present);
      await store().append("s1", [imageMessage(1, present), event(2), imageMessage(3, absent)], { expectedLastSeq: 0 });
      const report = await verify("s1");
      expect(report).toMatchObject({
        ok: false,
        damagedSessions: 1,
        sessions: [{ status: "damaged", sessionId: "s1", seq: 3, events: 2, damage: "blob_missing" }],
      });
      expect(await store().read("s1")).toHaveLength(3);
      await expect(resolveBlobs(store(), await store().read("s1"))).rejects.toMatchObject({
        code: "blob_damaged",
        damage: "blob_missing",
        hash: absent.hash,
      });
    });
  });
}
