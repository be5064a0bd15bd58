import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { z } from "zod";

/** The input of a sub-agent tool unless `input` says otherwise: `{ prompt: string }`. */
export type DefaultSubAgentInput = z.ZodObject<{ prompt: z.ZodString }, z.core.$strip>;

const description = "The task for the sub-agent, with everything it needs";

/** zod's name for what it received instead of the expected type. */
function received(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : String(value);
  return typeof value;
}

function invalidType(expected: string, value: unknown, path: readonly PropertyKey[]): StandardSchemaV1.FailureResult {
  return {
    issues: [{ message: `Invalid input: expected ${expected}, received ${received(value)}`, path }],
  };
}

type Args = { prompt: string };

const metaSchemas: Record<string, string> = {
  "draft-2020-12": "https://json-schema.org/draft/2020-12/schema",
  "draft-07": "http://json-schema.org/draft-07/schema#",
  "draft-04": "http://json-schema.org/draft-04/schema#",
};

function dialect(target: string): { $schema?: string } {
  const uri = Object.hasOwn(metaSchemas, target) ? metaSchemas[target] : undefined;
  return uri === undefined ? {} : { $schema: uri };
}

function objectSchema(): Record<string, unknown> {
  return { type: "object", properties: { prompt: { type: "string", description } }, required: ["prompt"] };
}

/**
 * `z.object({ prompt: z.string().describe(description) })` without loading zod when the package is
 * imported: the same JSON Schema, the same validation (unknown keys are dropped) and the same issue
 * messages. Only `tool()` sees it, and it reads nothing but `~standard`.
 */
const schema: StandardSchemaV1<Args> & StandardJSONSchemaV1<Args> = {
  "~standard": {
    version: 1,
    vendor: "nous",
    validate(value) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return invalidType("object", value, []);
      const prompt = (value as { prompt?: unknown }).prompt;
      if (typeof prompt !== "string") return invalidType("string", prompt, ["prompt"]);
      return { value: { prompt } };
    },
    jsonSchema: {
      input: ({ target }) => ({ ...dialect(target), ...objectSchema() }),
      output: ({ target }) => ({ ...dialect(target), ...objectSchema(), additionalProperties: false }),
    },
  },
};

export const defaultSubAgentInput = schema as unknown as DefaultSubAgentInput;
