import { EmbeddingInputError } from "../errors/embedding-errors.js";

/**
 * Checks the values to embed, before any request: each must be a non-empty string. The empty
 * string is refused for every provider alike (OpenAI rejects it with a 400; others return a vector
 * that means nothing), so a batch never fails halfway for one bad value. Whitespace is kept as is.
 * Throws `EmbeddingInputError` naming the first bad value's index.
 */
export function checkEmbeddingValues(values: unknown): readonly string[] {
  if (!Array.isArray(values)) {
    throw new EmbeddingInputError({ problem: `values must be an array of strings, got ${describe(values)}` });
  }
  for (let index = 0; index < values.length; index++) {
    const value: unknown = values[index];
    if (typeof value !== "string") {
      throw new EmbeddingInputError({ index, problem: `must be a string, got ${describe(value)}` });
    }
    if (value.length === 0) throw new EmbeddingInputError({ index, problem: "the empty string cannot be embedded" });
  }
  return values as readonly string[];
}

/** Checks `dimensions`: a positive integer when given. */
export function checkDimensions(dimensions: unknown): void {
  if (dimensions === undefined) return;
  if (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1) {
    throw new EmbeddingInputError({ problem: `dimensions must be a positive integer, got ${describe(dimensions)}` });
  }
}

/** Checks `maxParallelCalls`: a positive integer or `Infinity`. */
export function checkParallelCalls(maxParallelCalls: unknown): number {
  if (maxParallelCalls === Number.POSITIVE_INFINITY) return maxParallelCalls;
  if (typeof maxParallelCalls !== "number" || !Number.isInteger(maxParallelCalls) || maxParallelCalls < 1) {
    throw new EmbeddingInputError({
      problem: `maxParallelCalls must be a positive integer or Infinity, got ${describe(maxParallelCalls)}`,
    });
  }
  return maxParallelCalls;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return typeof value;
}
