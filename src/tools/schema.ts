import { Validator } from "@cfworker/json-schema";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { DefinitionError } from "../errors/user-errors.js";
import type { JsonSchema } from "../models/model.js";

/** What a tool's input or an agent's output type may be: a Standard Schema (zod 4, valibot, …) or a JSON Schema object. */
export type SchemaInput = StandardSchemaV1 | JsonSchema;

/** The parsed value a schema produces: the schema's output type, or `unknown` for plain JSON Schema. */
export type InferSchema<S> = S extends StandardSchemaV1<infer _Input, infer Output> ? Output : unknown;

export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: string };

/** A schema ready for use: its JSON Schema for providers and a validator. */
export interface CompiledSchema<T> {
  readonly jsonSchema: JsonSchema;
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

function isStandardSchema(value: object): value is StandardSchemaV1 {
  return "~standard" in value && typeof (value as StandardSchemaV1)["~standard"]?.validate === "function";
}

/**
 * Compiles a Standard Schema (which must also implement Standard JSON Schema, as zod 4 does) or a
 * plain JSON Schema object. `where` names the owner in errors.
 */
export function compileSchema<S extends SchemaInput>(schema: S, where: string): CompiledSchema<InferSchema<S>> {
  if (typeof schema !== "object" || schema === null) {
    throw new DefinitionError({ message: `${where}: the schema must be a Standard Schema or a JSON Schema object` });
  }
  if (isStandardSchema(schema)) return compileStandard(schema, where) as CompiledSchema<InferSchema<S>>;
  return compileJsonSchema(schema as JsonSchema, where) as CompiledSchema<InferSchema<S>>;
}

function compileStandard(schema: StandardSchemaV1, where: string): CompiledSchema<unknown> {
  const converter = (schema as unknown as Partial<StandardJSONSchemaV1>)["~standard"]?.jsonSchema;
  if (converter === undefined) {
    throw new DefinitionError({
      message: `${where}: this ${schema["~standard"].vendor} schema cannot be exported to JSON Schema (it does not implement Standard JSON Schema); pass a JSON Schema object instead`,
    });
  }
  const { $schema: _ignored, ...jsonSchema } = converter.input({ target: "draft-2020-12" });
  return {
    jsonSchema,
    validate(value) {
      const result = schema["~standard"].validate(value);
      return result instanceof Promise ? result.then(toValidation) : toValidation(result);
    },
  };
}

function toValidation(result: StandardSchemaV1.Result<unknown>): ValidationResult<unknown> {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: formatIssues(result.issues) };
}

function formatIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment)).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

function compileJsonSchema(schema: JsonSchema, where: string): CompiledSchema<unknown> {
  let validator: Validator;
  try {
    validator = new Validator(schema as Record<string, unknown> as never, "2020-12", false);
  } catch (cause) {
    throw new DefinitionError({ message: `${where}: invalid JSON Schema`, cause });
  }
  return {
    jsonSchema: schema,
    validate(value) {
      const result = validator.validate(value);
      if (result.valid) return { ok: true, value };
      const issues = result.errors
        .filter((error) => error.keyword !== "properties" && error.keyword !== "$ref")
        .map((error) => `${error.instanceLocation.replace(/^#\/?/, "") || "(root)"}: ${error.error}`);
      return { ok: false, issues: issues.join("; ") || "does not match the schema" };
    },
  };
}
