import { UserError } from "./nous-error.js";
import { ProviderError } from "./provider-error.js";

/**
 * A value given to `embed` or `embedMany` cannot be embedded: it is not a string, or it is the
 * empty string (which the embedding APIs reject or turn into a meaningless vector); or an option is
 * out of range (`dimensions`, `maxParallelCalls`). Raised before any request is sent; `index` is
 * the bad value's position in the input (undefined for an option).
 *
 * @example
 * try { await embedMany({ model, values: ["a", ""] }) } catch (error) {
 *   if (error instanceof EmbeddingInputError) console.log(error.index); // 1
 * }
 */
export class EmbeddingInputError extends UserError {
  readonly code = "invalid_embedding_input";
  readonly index: number | undefined;

  constructor(fields: { index?: number; problem: string }) {
    super({
      message: fields.index === undefined ? fields.problem : `embedding value ${fields.index}: ${fields.problem}`,
    });
    this.index = fields.index;
  }
}

/**
 * A provider answered an embedding request with another number of embeddings than values sent, or
 * with indexes that do not cover them exactly once. Nothing is returned rather than vectors paired
 * with the wrong texts.
 *
 * @example
 * try { await embedMany({ model, values }) } catch (error) {
 *   if (error instanceof EmbeddingCountMismatchError) console.log(error.expected, error.received);
 * }
 */
export class EmbeddingCountMismatchError extends ProviderError {
  readonly code = "provider_embedding_count_mismatch";
  readonly retryable = false;
  readonly expected: number;
  readonly received: number;

  constructor(fields: { provider: string; expected: number; received: number; detail?: string }) {
    super({
      provider: fields.provider,
      message: `sent ${fields.expected} values to embed, received ${fields.received} embeddings${fields.detail === undefined ? "" : ` (${fields.detail})`}`,
    });
    this.expected = fields.expected;
    this.received = fields.received;
  }
}
