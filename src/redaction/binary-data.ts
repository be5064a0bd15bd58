/*
 * The base64 bytes of an image, file or audio part are not scanned for secrets: a registered secret
 * written into a file is base64-encoded there, so scanning the base64 text for it finds nothing real
 * — only, now and then in megabytes of data, a chance match, whose placeholder would break the bytes.
 * A URL in `data` (http, data:) is text and is scanned like any other string.
 */

import { BINARY_PART_TYPES } from "../session/binary-parts.js";

/** True when `record[key]` is the base64 `data` of a content part `{ type: image|file|audio, data, mediaType }`. */
export function isBinaryPartData(record: Record<string, unknown>, key: string, item: unknown): boolean {
  return (
    key === "data" &&
    typeof item === "string" &&
    typeof record.mediaType === "string" &&
    BINARY_PART_TYPES.has(record.type as string) &&
    !/^(data:|[a-z][a-z0-9+.-]*:\/\/)/i.test(item)
  );
}
