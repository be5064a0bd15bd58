import { UnsupportedContentError, type UnsupportedContentPlace } from "../../../errors/unsupported-content-error.js";
import { base64ToUtf8, utf8ToBase64 } from "../../../platform/text-bytes.js";
import type { UserContentPart } from "../../../session/messages.js";

/*
 * What every provider's content mapping shares: which kind of media a binary part holds (routed by
 * media type, so a `file` part of type `audio/wav` is audio), where its bytes are (base64 or a URL;
 * a `data:` URL is unpacked) and the typed error for a part the provider cannot take.
 */

/** A content part that carries bytes: every part but text. */
export type BinaryPart = Exclude<UserContentPart, { readonly type: "text" }>;

/** How providers tell binary parts apart. */
export type MediaKind = "image" | "pdf" | "text" | "audio" | "other";

/**
 * The kind of a binary part: an `audio` part, or any part of an `audio/*` type, is audio; an
 * `image` part or an `image/*` type is an image; `application/pdf` a PDF; `text/*` and
 * `application/json` text; anything else `other`.
 */
export function mediaKind(part: BinaryPart): MediaKind {
  const type = part.mediaType.toLowerCase();
  if (part.type === "audio" || type.startsWith("audio/")) return "audio";
  if (part.type === "image" || type.startsWith("image/")) return "image";
  if (type === "application/pdf") return "pdf";
  if (type.startsWith("text/") || type === "application/json") return "text";
  return "other";
}

/** A part's bytes: a remote URL, or base64 with the media type a `data:` URL named (else the part's). */
export type PartData =
  | { readonly kind: "url"; readonly url: string }
  | { readonly kind: "base64"; readonly mediaType: string; readonly data: string };

const dataUrlPattern = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s;

/** Where the bytes of `data` are: an `http(s):`/`gs:` URL as is, a `data:` URL unpacked, otherwise base64. */
export function partData(data: string, mediaType: string): PartData {
  if (/^(https?|gs):\/\//.test(data)) return { kind: "url", url: data };
  if (!data.startsWith("data:")) return { kind: "base64", mediaType, data };
  const match = dataUrlPattern.exec(data);
  if (match === null) return { kind: "base64", mediaType, data };
  const payload = match[4] ?? "";
  const base64 = match[3] !== undefined ? payload : utf8ToBase64(decodeURIComponent(payload));
  return { kind: "base64", mediaType: match[1] || mediaType, data: base64 };
}

/** The text a text part's bytes hold (base64 or a `data:` URL). */
export function partText(data: string, mediaType: string): string {
  const unpacked = partData(data, mediaType);
  return unpacked.kind === "base64" ? base64ToUtf8(unpacked.data) : unpacked.url;
}

/** The typed error for a part `provider` cannot take; thrown while the body is built, before anything is sent. */
export function unsupportedContent(
  provider: string,
  part: BinaryPart,
  place: UnsupportedContentPlace,
  reason?: string,
): UnsupportedContentError {
  return new UnsupportedContentError({
    provider,
    partType: part.type,
    mediaType: part.mediaType,
    place,
    ...(reason === undefined ? {} : { reason }),
  });
}
