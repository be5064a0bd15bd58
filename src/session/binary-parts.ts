/**
 * Binary parts of surface events (images, files, audio in the `content` of `user_message` and
 * `tool_result` data) and their stored form: a persistent session store keeps the bytes once, by
 * hash, beside the log, and the event holds a reference to them (`BlobRefPart`). No imports: the
 * redaction walk and the store both read these shapes.
 */

/** The part types whose `data` is base64 bytes. */
export const BINARY_PART_TYPES: ReadonlySet<string> = new Set(["image", "file", "audio"]);

/** The event types whose data's `content` array may hold binary parts. */
const CONTENT_EVENT_TYPES: ReadonlySet<string> = new Set(["user_message", "tool_result"]);

/** A binary part with its bytes inline: `data` is base64. */
export interface InlineBinaryPart {
  readonly type: string;
  readonly data: string;
  readonly mediaType?: string;
  readonly [key: string]: unknown;
}

/**
 * A binary part as a stored log holds it: the part without its `data`, plus `blob` (the hash of the
 * decoded bytes, `sha256:<64 hex>`) and `size` (their length). `resolveBlobs` (`nous`) puts the
 * `data` back from the store's blobs. Every other field of the part (`mediaType`, `filename`) stays.
 *
 * @example
 * const ref: BlobRefPart = { type: "image", mediaType: "image/png", blob: "sha256:9f86…", size: 68 };
 */
export type BlobRefPart =
  | {
      readonly type: "image";
      readonly mediaType: string;
      readonly blob: string;
      /** @asType integer */
      readonly size: number;
    }
  | {
      readonly type: "file";
      readonly mediaType: string;
      readonly filename?: string;
      readonly blob: string;
      /** @asType integer */
      readonly size: number;
    }
  | {
      readonly type: "audio";
      readonly mediaType: string;
      readonly blob: string;
      /** @asType integer */
      readonly size: number;
    };

/** Whether `value` is a binary part with inline base64 `data`. */
export function isInlineBinaryPart(value: unknown): value is InlineBinaryPart {
  if (typeof value !== "object" || value === null) return false;
  const part = value as { type?: unknown; data?: unknown };
  return typeof part.type === "string" && BINARY_PART_TYPES.has(part.type) && typeof part.data === "string";
}

/** Whether `value` is a binary part stored by reference (see `BlobRefPart`). */
export function isBlobRefPart(value: unknown): value is BlobRefPart {
  if (typeof value !== "object" || value === null) return false;
  const part = value as { type?: unknown; blob?: unknown; data?: unknown };
  return (
    typeof part.type === "string" &&
    BINARY_PART_TYPES.has(part.type) &&
    typeof part.blob === "string" &&
    part.data === undefined
  );
}

/**
 * The binary parts of one event's data: the parts of the `content` array of a `user_message` or
 * `tool_result` (other types, and string content, have none).
 *
 * @example
 * binaryPartsOf("user_message", { content: [{ type: "text", text: "hi" }, image] }); // [image]
 */
export function binaryPartsOf(type: string, data: unknown): readonly unknown[] {
  const content = contentOf(type, data);
  return content === undefined ? [] : content.filter((part) => isInlineBinaryPart(part) || isBlobRefPart(part));
}

/**
 * `data` with each part of its `content` array replaced by `map(part)` (parts it returns unchanged
 * stay as they are); `data` itself when nothing changed. Only `user_message` and `tool_result` data
 * have content parts.
 *
 * @example
 * const stored = mapContentParts("user_message", data, (part) => (isInlineBinaryPart(part) ? toRef(part) : part));
 */
export function mapContentParts(type: string, data: unknown, map: (part: unknown) => unknown): unknown {
  const content = contentOf(type, data);
  if (content === undefined) return data;
  let changed = false;
  const mapped = content.map((part) => {
    const next = map(part);
    if (next !== part) changed = true;
    return next;
  });
  return changed ? { ...(data as Record<string, unknown>), content: mapped } : data;
}

function contentOf(type: string, data: unknown): readonly unknown[] | undefined {
  if (!CONTENT_EVENT_TYPES.has(type) || typeof data !== "object" || data === null) return undefined;
  const content = (data as { content?: unknown }).content;
  return Array.isArray(content) ? content : undefined;
}

/**
 * Whether any user or tool message of `messages` still holds a binary part by reference (a stored
 * log not resolved with `resolveBlobs`).
 *
 * @example
 * hasBlobRefs(projectMessages(await store.read("u42"))); // true when the session holds an image
 */
export function hasBlobRefs(messages: readonly { readonly role: string; readonly content?: unknown }[]): boolean {
  for (const message of messages) {
    if ((message.role !== "user" && message.role !== "tool") || !Array.isArray(message.content)) continue;
    if (message.content.some(isBlobRefPart)) return true;
  }
  return false;
}
