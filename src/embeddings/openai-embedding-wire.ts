import { EmbeddingCountMismatchError } from "../errors/embedding-errors.js";
import { MalformedResponseError } from "../errors/provider-error.js";
import { decodeFloat32Base64 } from "./decode-float32-base64.js";
import type { EmbeddingRequest, EmbeddingResponse } from "./embedding-model.js";

/** How the vectors travel: JSON numbers, or base64 of little-endian float32 (smaller, faster to read). */
export type EmbeddingEncoding = "float" | "base64";

/**
 * The body of `POST /embeddings`: the request's `providerOptions[provider]` fields (`user`, a
 * server's own options), then `model`, the `input` array, `encoding_format` and `dimensions` when
 * asked, which an option of the same name cannot replace (the answer must match the values sent).
 */
export function buildOpenAIEmbeddingBody(
  provider: string,
  modelId: string,
  request: EmbeddingRequest,
  encoding: EmbeddingEncoding,
): Record<string, unknown> {
  return {
    ...request.providerOptions?.[provider],
    model: modelId,
    input: request.values,
    encoding_format: encoding,
    ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
  };
}

/**
 * The vectors of an embeddings answer (`{"object":"list","data":[{"object":"embedding","index":0,
 * "embedding":[…]}],"model":…,"usage":{"prompt_tokens":…}}`), put in input order by each item's
 * `index`. A vector may be numbers or base64 whatever was asked (servers that ignore
 * `encoding_format` send numbers). Indexes that do not cover `0..expected-1` exactly once are an
 * `EmbeddingCountMismatchError`; a body of another shape is a `MalformedResponseError`.
 */
export function parseOpenAIEmbeddings(provider: string, body: unknown, expected: number): EmbeddingResponse {
  const malformed = (detail: string) =>
    new MalformedResponseError({ provider, message: `the embeddings answer ${detail}` });
  if (typeof body !== "object" || body === null) throw malformed("is not a JSON object");
  const { data, usage } = body as { data?: unknown; usage?: unknown };
  if (!Array.isArray(data)) throw malformed("has no data array");
  if (data.length !== expected) {
    throw new EmbeddingCountMismatchError({ provider, expected, received: data.length });
  }
  const embeddings = new Array<number[] | undefined>(expected);
  data.forEach((item: unknown, position) => {
    if (typeof item !== "object" || item === null) throw malformed(`has an item ${position} that is not an object`);
    const { index = position, embedding } = item as { index?: unknown; embedding?: unknown };
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected) {
      throw new EmbeddingCountMismatchError({
        provider,
        expected,
        received: data.length,
        detail: `index ${String(index)} is out of range`,
      });
    }
    if (embeddings[index] !== undefined) {
      throw new EmbeddingCountMismatchError({
        provider,
        expected,
        received: data.length,
        detail: `index ${index} came twice`,
      });
    }
    embeddings[index] = vectorOf(embedding, () =>
      malformed(`has an embedding ${index} that is neither numbers nor base64`),
    );
  });
  const inputTokens = (usage as { prompt_tokens?: unknown } | undefined)?.prompt_tokens;
  return {
    embeddings: embeddings as number[][],
    usage: typeof inputTokens === "number" ? { inputTokens } : {},
  };
}

function vectorOf(embedding: unknown, malformed: () => Error): number[] {
  if (typeof embedding === "string") return decodeFloat32Base64(embedding) ?? throwError(malformed());
  if (Array.isArray(embedding) && embedding.every((value) => typeof value === "number")) return embedding as number[];
  throw malformed();
}

function throwError(error: Error): never {
  throw error;
}
