import type { JsonSchema } from "./model.js";

/**
 * A value valid for a JSON Schema, built deterministically: the first enum/const/example, the
 * smallest string, number or list that meets the bounds, every required property of an object.
 * `$ref`s into `$defs`/`definitions` of the root are followed (recursion stops at a depth bound).
 */
export function sampleFromSchema(schema: JsonSchema, root: JsonSchema = schema, depth = 0): unknown {
  if (depth > 12) return null;
  const next = (inner: unknown) => sampleFromSchema((inner ?? {}) as JsonSchema, root, depth + 1);
  if (typeof schema.$ref === "string") return next(resolveRef(schema.$ref, root));
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("default" in schema) return schema.default;
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const nonNull = options.find((option) => (option as JsonSchema).type !== "null") ?? options[0];
      return next(nonNull);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return Object.assign({}, ...schema.allOf.map((part) => next(part)).filter((value) => typeof value === "object"));
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((item) => item !== "null") ?? "null") : schema.type;
  switch (type) {
    case "string":
      return sampleString(schema);
    case "integer":
    case "number":
      return sampleNumber(schema, type === "integer");
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 1;
      return Array.from({ length: count }, () => next(schema.items));
    }
    default: {
      if (type !== "object" && schema.properties === undefined) return type === undefined ? "sample" : null;
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set(
        Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(properties),
      );
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name)) value[name] = next(property);
      }
      return value;
    }
  }
}

function resolveRef(ref: string, root: JsonSchema): unknown {
  if (ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return {};
  const table = root[match[1] as string] as Record<string, unknown> | undefined;
  return table?.[decodeURIComponent(match[2] as string)] ?? {};
}

function sampleString(schema: JsonSchema): string {
  switch (schema.format) {
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "date":
      return "2026-01-01";
    case "time":
      return "00:00:00";
    case "email":
      return "user@example.com";
    case "uri":
    case "url":
      return "https://example.com";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    default: {
      const minimum = typeof schema.minLength === "number" ? schema.minLength : 1;
      const maximum = typeof schema.maxLength === "number" ? schema.maxLength : Math.max(minimum, 6);
      const text = "sample".padEnd(minimum, "x");
      return text.slice(0, Math.max(minimum, Math.min(text.length, maximum)));
    }
  }
}

function sampleNumber(schema: JsonSchema, integer: boolean): number {
  let value = 1;
  if (typeof schema.minimum === "number") value = Math.max(value, schema.minimum);
  if (typeof schema.exclusiveMinimum === "number")
    value = Math.max(value, schema.exclusiveMinimum + (integer ? 1 : 0.5));
  if (typeof schema.maximum === "number") value = Math.min(value, schema.maximum);
  if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) {
    value = schema.exclusiveMaximum - (integer ? 1 : 0.5);
  }
  if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) {
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  }
  return integer ? Math.ceil(value) : value;
}
