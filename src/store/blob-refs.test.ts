import { describe, expect, it } from "vitest";
import { BlobDamagedError } from "../errors/blob-damaged-error.js";
import { bytesToBase64 } from "../platform/binary-bytes.js";
import type { SessionEvent } from "../session/events.js";
import { externalizeBlobs, resolveBlobs } from "./blob-refs.js";
import { blobHash } from "./blob-store.js";
import { MemoryStore } from "./memory-store.js";

const AT = "2025-01-02T03:04:05.678Z";
const bytes = (...values: number[]) => new Uint8Array(values);
const png = bytes(137, 80, 78, 71, 0, 255);
const wav = bytes(82, 73, 70, 70);
const event = (seq: number, type: string, data: unknown) => ({ seq, at: AT, type, data }) as SessionEvent;

describe("externalizeBlobs / resolveBlobs", () => {
  const events = [
    event(1, "user_message", {
      content: [
        { type: "text", text: "see" },
        { type: "image", data: bytesToBase64(png), mediaType: "image/png" },
        { type: "file", filename: "a.pdf", mediaType: "application/pdf", data: bytesToBase64(png) },
      ],
    }),
    event(2, "tool_result", {
      toolCallId: "c1",
      toolName: "record",
      result: "ok",
      isError: false,
      content: [{ type: "audio", data: bytesToBase64(wav), mediaType: "audio/wav" }],
    }),
    event(3, "note", { content: [{ type: "image", data: bytesToBase64(png), mediaType: "image/png" }] }),
    event(4, "user_message", { content: "plain" }),
  ];

  it("replaces each binary part's data by its hash and size, in place, and puts the data back exactly", async () => {
    const store = new MemoryStore();
    const recorded = await externalizeBlobs(store, events);
    expect(recorded[0]?.data).toEqual({
      content: [
        { type: "text", text: "see" },
        { type: "image", blob: blobHash(png), size: 6, mediaType: "image/png" },
        { type: "file", filename: "a.pdf", mediaType: "application/pdf", blob: blobHash(png), size: 6 },
      ],
    });
    expect(Object.keys((recorded[0]?.data as { content: object[] }).content[1] ?? {})).toEqual([
      "type",
      "blob",
      "size",
      "mediaType",
    ]);
    expect((recorded[1]?.data as { content: unknown[] }).content).toEqual([
      { type: "audio", blob: blobHash(wav), size: 4, mediaType: "audio/wav" },
    ]);
    expect(recorded[2]).toBe(events[2]); // only user_message and tool_result content is binary content
    expect(recorded[3]).toBe(events[3]);
    expect((await store.getBlob(blobHash(wav)))?.mediaType).toBe("audio/wav");

    const resolved = await resolveBlobs(store, recorded);
    expect(resolved).toEqual(events);
    expect(JSON.stringify(resolved)).toBe(JSON.stringify(events)); // field order too
  });

  it("returns the same events when none refers to a blob, and keeps data inline for a store without putBlob", async () => {
    const plain = [event(1, "user_message", { content: "hi" })];
    expect(await resolveBlobs(new MemoryStore(), plain)).toBe(plain);
    const custom = { getBlob: undefined, putBlob: undefined };
    expect(await externalizeBlobs(custom, events)).toEqual(events);
  });

  it("refuses to resolve a reference the store cannot serve", async () => {
    const recorded = await externalizeBlobs(new MemoryStore(), events);
    await expect(resolveBlobs(new MemoryStore(), recorded)).rejects.toBeInstanceOf(BlobDamagedError);
    await expect(resolveBlobs({}, recorded)).rejects.toMatchObject({ damage: "blob_missing", hash: blobHash(png) });
  });
});
