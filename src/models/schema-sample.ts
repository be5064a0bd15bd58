import { UnsupportedSchemaError } from "../errors/user-errors.js";
import type { JsonSchema } from "./model.js";

/**
 * A value valid for a JSON Schema, built deterministically: the first enum/const/example, the
 * smallest string, number or list that meets the bounds, every required property of an object.
 * `$ref`s into `$defs`/`definitions` of the root are followed (recursion stops at a depth bound).
 * A schema it cannot satisfy (a `pattern` its string does not match, bounds no value meets) throws
 * `UnsupportedSchemaError` naming the keyword and where it is.
 *
 * @example
 * sampleFromSchema({ type: "array", prefixItems: [{ type: "string" }], items: false }); // ["sample"]
 */
export function sampleFromSchema(schema: JsonSchema, root: JsonSchema = schema): unknown {
  return sample(schema, { root, depth: 0, path: "#", variant: 0 });
}

interface At {
  readonly root: JsonSchema;
  readonly depth: number;
  /** JSON Pointer of the schema being sampled, for errors. */
  readonly path: string;
  /** Which of several distinct values to make (for `uniqueItems`). */
  readonly variant: number;
}

function sample(given: unknown, at: At): unknown {
  if (given === true || given === undefined) return at.variant === 0 ? "sample" : `sample${at.variant}`;
  if (given === false) unsupported("false", at, "no value is valid for the schema `false`");
  if (typeof given !== "object" || given === null) unsupported("schema", at, "a schema must be an object or a boolean");
  const schema = given as JsonSchema;
  if (at.depth > 12) return null;
  const next = (inner: unknown, segment: string, variant = at.variant) =>
    sample(inner, { root: at.root, depth: at.depth + 1, path: `${at.path}/${segment}`, variant });
  if (typeof schema.$ref === "string") return next(resolveRef(schema.$ref, at.root), "$ref");
  if (schema.not !== undefined) unsupported("not", at, "values a schema excludes are not worked out");
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return pick(schema.enum, at);
  if (Array.isArray(schema.examples) && schema.examples.length > 0 && at.variant === 0) return schema.examples[0];
  if ("default" in schema && at.variant === 0) return schema.default;
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const index = options.findIndex((option) => (option as JsonSchema).type !== "null");
      return next(options[Math.max(index, 0)], `${key}/${Math.max(index, 0)}`);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((part, index) => next(part, `allOf/${index}`));
    const objects = parts.filter((value) => typeof value === "object" && value !== null && !Array.isArray(value));
    return objects.length === parts.length ? Object.assign({}, ...objects) : parts[0];
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((item) => item !== "null") ?? "null") : schema.type;
  switch (type) {
    case "string":
      return sampleString(schema, at);
    case "integer":
    case "number":
      return sampleNumber(schema, type === "integer", at);
    case "boolean":
      return at.variant % 2 === 0;
    case "null":
      return null;
    case "array":
      return sampleArray(schema, at, next);
    default: {
      if (type !== "object" && schema.properties === undefined) {
        return type === undefined ? sample(true, at) : unsupported("type", at, `unknown type ${JSON.stringify(type)}`);
      }
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(properties);
      const value: Record<string, unknown> = {};
      for (const name of required) {
        // A required name with no property of its own (a record with enum keys) takes the other properties' schema.
        value[name] =
          name in properties
            ? next(properties[name], `properties/${escapePointer(name)}`)
            : next(schema.additionalProperties, "additionalProperties");
      }
      return value;
    }
  }
}

type Next = (inner: unknown, segment: string, variant?: number) => unknown;

function sampleArray(schema: JsonSchema, at: At, next: Next): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const minimum = typeof schema.minItems === "number" ? schema.minItems : 0;
  const maximum = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
  const noMore = schema.items === false;
  // Deep down (a recursive schema), optional list items stop so the value ends.
  const optional = noMore || maximum === 0 || at.depth > 6 ? 0 : 1;
  let count = Math.max(minimum, prefix.length, optional);
  count = Math.min(count, maximum, noMore ? prefix.length : Number.POSITIVE_INFINITY);
  if (count < minimum || count < Math.min(prefix.length, maximum)) {
    unsupported(count < minimum ? "minItems" : "maxItems", at, `no list meets minItems ${minimum} with these items`);
  }
  const unique = schema.uniqueItems === true;
  const make = (length: number) =>
    Array.from({ length }, (_, index) =>
      index < prefix.length
        ? next(prefix[index], `prefixItems/${index}`, unique ? at.variant : 0)
        : next(schema.items, "items", unique ? index : 0),
    );
  let values: unknown[];
  try {
    values = make(count);
  } catch (error) {
    // An item nothing satisfies: a list of just the required items may still be valid.
    const required = Math.max(minimum, prefix.length);
    if (!(error instanceof UnsupportedSchemaError) || count <= required) throw error;
    values = make(required);
  }
  if (unique && new Set(values.map((value) => JSON.stringify(value))).size < values.length) {
    unsupported("uniqueItems", at, `cannot make ${count} distinct items`);
  }
  return values;
}

function pick(options: readonly unknown[], at: At): unknown {
  return options[at.variant % options.length];
}

function unsupported(keyword: string, at: At, detail: string): never {
  throw new UnsupportedSchemaError({ keyword, path: at.path, detail });
}

function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function resolveRef(ref: string, root: JsonSchema): unknown {
  if (ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return {};
  const table = root[match[1] as string] as Record<string, unknown> | undefined;
  return table?.[decodeURIComponent(match[2] as string)] ?? {};
}

const formats: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00",
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
};

function sampleString(schema: JsonSchema, at: At): string {
  const format = typeof schema.format === "string" ? formats[schema.format] : undefined;
  const maximum = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  const minimum = typeof schema.minLength === "number" ? schema.minLength : Math.min(1, maximum);
  const base = at.variant === 0 ? "sample" : `sample${at.variant}`;
  const sized = base.padEnd(minimum, "x").slice(0, Math.max(minimum, Math.min(base.length, maximum)));
  const pattern = typeof schema.pattern === "string" ? toRegExp(schema.pattern) : undefined;
  // A format zod writes as a pattern only (an ISO time, say) is matched by one of the well-known samples.
  const candidates = [...(format === undefined ? [] : [format]), sized, ...(pattern ? Object.values(formats) : [])];
  const fitting = candidates.find(
    (text) => text.length >= minimum && text.length <= maximum && (pattern === undefined || pattern.test(text)),
  );
  if (fitting !== undefined) return fitting;
  if (pattern !== undefined && candidates.some((text) => text.length >= minimum && text.length <= maximum)) {
    unsupported("pattern", at, `cannot make a string matching /${schema.pattern}/`);
  }
  return unsupported(
    sized.length < minimum ? "minLength" : "maxLength",
    at,
    `no sample fits length ${minimum}…${maximum}`,
  );
}

/** JSON Schema patterns are Unicode regular expressions; some written for JavaScript only parse without `u`. */
function toRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return new RegExp(pattern);
  }
}

function sampleNumber(schema: JsonSchema, integer: boolean, at: At): number {
  const bound = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  const [minimum, maximum] = [bound("minimum"), bound("maximum")];
  const [above, below] = [bound("exclusiveMinimum"), bound("exclusiveMaximum")];
  const step = (bound("multipleOf") ?? 0) > 0 ? bound("multipleOf") : undefined;
  const low = Math.max(minimum ?? Number.NEGATIVE_INFINITY, above ?? Number.NEGATIVE_INFINITY);
  const high = Math.min(maximum ?? Number.POSITIVE_INFINITY, below ?? Number.POSITIVE_INFINITY);
  const fits = (value: number) =>
    Number.isFinite(value) &&
    !(minimum !== undefined && value < minimum) &&
    !(maximum !== undefined && value > maximum) &&
    !(above !== undefined && value <= above) &&
    !(below !== undefined && value >= below) &&
    !(integer && !Number.isInteger(value)) &&
    !(step !== undefined && Math.abs(value / step - Math.round(value / step)) > 1e-9);
  const preferred = Math.min(Math.max(1 + at.variant, low), high);
  const unit = step ?? (integer ? 1 : undefined);
  const candidates =
    unit === undefined
      ? [preferred, (low + high) / 2, low + 0.5, high - 0.5, low + (high - low) / 4]
      : [Math.ceil, Math.floor].flatMap((round) =>
          [preferred, low, high].flatMap((near) => [round(near / unit) * unit, (round(near / unit) + 1) * unit]),
        );
  const value = candidates.find(fits);
  if (value === undefined) {
    unsupported(
      step !== undefined ? "multipleOf" : "maximum",
      at,
      `no ${integer ? "integer" : "number"} fits the bounds`,
    );
  }
  return value;
}
