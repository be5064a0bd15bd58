import { EmbeddingCountMismatchError } from "../errors/embedding-errors.js";
import { MalformedResponseError } from "../errors/provider-error.js";
import type { EmbeddingRequest } from "./embedding-model.js";

const PROVIDER = "gemini";

/**
 * One `EmbedContentRequest`: the text as the content's one part, then `taskType` and `title` from
 * `providerOptions.gemini` (its other fields are sent too, but never replace `model` or `content`),
 * and `outputDimensionality` from `dimensions`. `model` is given only in a batch (each request of `batchEmbedContents` names it; `embedContent` takes it from the path).
 */
export function buildEmbedContentRequest(
  text: string,
  request: EmbeddingRequest,
  model: string | undefined,
): Record<string, unknown> {
  const { taskType, title, ...rest } = request.providerOptions?.gemini ?? {};
  return {
    ...rest,
    ...(model === undefined ? {} : { model }),
    content: { parts: [{ text }] },
    ...(taskType === undefined ? {} : { taskType }),
    ...(title === undefined ? {} : { title }),
    ...(request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }),
  };
}

/** The body of `:batchEmbedContents`: one request per value, in order. */
export function buildBatchEmbedBody(request: EmbeddingRequest, model: string): Record<string, unknown> {
  return { requests: request.values.map((text) => buildEmbedContentRequest(text, request, model)) };
}

/** The vector of an `:embedContent` answer (`{"embedding":{"values":[…]}}`). */
export function parseEmbedContent(body: unknown): number[][] {
  const embedding = (body as { embedding?: unknown } | null)?.embedding;
  return [valuesOf(embedding, 0)];
}

/**
 * The vectors of a `:batchEmbedContents` answer (`{"embeddings":[{"values":[…]},…]}`), in the
 * order of the requests, as the API documents; another count is an `EmbeddingCountMismatchError`.
 */
export function parseBatchEmbedContents(body: unknown, expected: number): number[][] {
  const embeddings = (body as { embeddings?: unknown } | null)?.embeddings;
  if (!Array.isArray(embeddings)) {
    throw new MalformedResponseError({ provider: PROVIDER, message: "the batch answer has no embeddings array" });
  }
  if (embeddings.length !== expected) {
    throw new EmbeddingCountMismatchError({ provider: PROVIDER, expected, received: embeddings.length });
  }
  return embeddings.map((embedding: unknown, index) => valuesOf(embedding, index));
}

function valuesOf(embedding: unknown, index: number): number[] {
  const values = (embedding as { values?: unknown } | null | undefined)?.values;
  if (!Array.isArray(values) || !values.every((value) => typeof value === "number")) {
    throw new MalformedResponseError({
      provider: PROVIDER,
      message: `embedding ${index} has no values array of numbers`,
    });
  }
  return values as number[];
}
