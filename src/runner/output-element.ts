import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonSchema } from "../models/model.js";
import { type CompiledSchema, compileSchema } from "../tools/schema.js";

/**
 * The schema of one element when the output type is an array (for `output-element` stream events),
 * else `undefined`: the array schema's own element schema when it exposes one (zod's `element`),
 * else its JSON Schema `items` (with the root's definitions, which `items` may refer to).
 */
export function arrayElementSchema(
  outputType: StandardSchemaV1 | JsonSchema,
  jsonSchema: JsonSchema,
): CompiledSchema<unknown> | undefined {
  if (jsonSchema.type !== "array") return undefined;
  const element = (outputType as { element?: unknown }).element;
  if (isStandardWithJsonSchema(element)) return compileSchema(element, "outputType element");
  const items = jsonSchema.items;
  if (typeof items !== "object" || items === null || Array.isArray(items)) return undefined;
  const definitions: Record<string, unknown> = {};
  for (const key of ["$defs", "definitions"] as const)
    if (jsonSchema[key] !== undefined) definitions[key] = jsonSchema[key];
  return compileSchema({ ...definitions, ...(items as JsonSchema) }, "outputType element");
}

function isStandardWithJsonSchema(value: unknown): value is StandardSchemaV1 {
  if (typeof value !== "object" || value === null || !("~standard" in value)) return false;
  const standard = (value as { "~standard"?: { validate?: unknown; jsonSchema?: unknown } })["~standard"];
  return typeof standard?.validate === "function" && typeof standard.jsonSchema === "object";
}
