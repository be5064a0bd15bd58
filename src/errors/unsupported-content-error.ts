import { UserError } from "./nous-error.js";

/** Where a content part the provider cannot take was found. */
export type UnsupportedContentPlace = "user_message" | "tool_result";

/**
 * A message holds a content part the provider's API cannot take (audio for Anthropic or the OpenAI
 * Responses API, an audio format Chat Completions does not read, a file type Anthropic has no block
 * for). Thrown while the request body is built, so nothing is sent, and never retried: send the
 * content another way (transcribe the audio, convert the file) or use a provider that reads it.
 *
 * @example
 * try { await agent.run([{ type: "audio", data: wavBase64, mediaType: "audio/wav" }]) } catch (error) {
 *   if (error instanceof UnsupportedContentError) console.log(error.provider, error.partType, error.mediaType);
 * }
 */
export class UnsupportedContentError extends UserError {
  readonly code = "unsupported_content";
  readonly provider: string;
  /** The part's `type` (`image`, `file`, `audio`). */
  readonly partType: string;
  readonly mediaType: string;
  readonly place: UnsupportedContentPlace;

  constructor(fields: {
    provider: string;
    partType: string;
    mediaType: string;
    place: UnsupportedContentPlace;
    reason?: string;
  }) {
    const where = fields.place === "user_message" ? "a user message" : "a tool result";
    super({
      message: `${fields.provider} cannot take ${where}'s ${fields.partType} part of type ${fields.mediaType}${fields.reason === undefined ? "" : `: ${fields.reason}`}`,
    });
    this.provider = fields.provider;
    this.partType = fields.partType;
    this.mediaType = fields.mediaType;
    this.place = fields.place;
  }
}
