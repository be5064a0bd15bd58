import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonSchema, Model, NativeOutputSpec, ToolDefinition } from "../models/model.js";
import { type CompiledSchema, compileSchema, type ValidationResult } from "../tools/schema.js";
import { arrayElementSchema } from "./output-element.js";
import type { OutputMode } from "./types.js";

/** The name of the synthetic tool whose call is the final answer in `tool` mode. */
export const OUTPUT_TOOL_NAME = "final_result";

/** How a run gets and checks its structured output. */
export interface OutputSpec<O> {
  readonly mode: "tool" | "native" | "prompted";
  readonly schema: CompiledSchema<O>;
  /** The JSON Schema sent to the model: an object at the root (non-object schemas are wrapped in `{ response }`). */
  readonly jsonSchema: JsonSchema;
  readonly wrapped: boolean;
  /** When the output type is an array: the schema of one element (for `output-element` stream events). */
  readonly element?: CompiledSchema<unknown>;
}

/** Picks the mode (`auto`: native when the model supports it, else tool) and compiles the schema. */
export function resolveOutputSpec<O>(
  outputType: StandardSchemaV1<unknown, O> | JsonSchema | undefined,
  mode: OutputMode,
  model: Model,
): OutputSpec<O> | undefined {
  if (outputType === undefined) return undefined;
  const schema = compileSchema(outputType, "outputType") as CompiledSchema<O>;
  const resolved = mode === "auto" ? (model.capabilities?.nativeOutput ? "native" : "tool") : mode;
  const isObject = schema.jsonSchema.type === "object";
  const wrapped = !isObject && resolved !== "prompted";
  const jsonSchema = wrapped
    ? {
        type: "object",
        properties: { response: schema.jsonSchema },
        required: ["response"],
        additionalProperties: false,
      }
    : schema.jsonSchema;
  const element = arrayElementSchema(outputType, schema.jsonSchema);
  return { mode: resolved, schema, jsonSchema, wrapped, ...(element === undefined ? {} : { element }) };
}

export function outputToolDefinition(spec: OutputSpec<unknown>): ToolDefinition {
  return {
    name: OUTPUT_TOOL_NAME,
    description: "Give the final answer. Call this exactly once, with the complete result, when you are done.",
    inputSchema: spec.jsonSchema,
  };
}

export function nativeOutput(spec: OutputSpec<unknown>): NativeOutputSpec {
  return { type: "json", name: OUTPUT_TOOL_NAME, schema: spec.jsonSchema };
}

export function promptedInstructions(spec: OutputSpec<unknown>): string {
  return [
    "Answer with a single JSON value and nothing else (no prose, no code fences).",
    `It must match this JSON Schema: ${JSON.stringify(spec.jsonSchema)}`,
  ].join("\n");
}

/** Validates a candidate (tool arguments, or parsed JSON text) and unwraps `{ response }` when wrapped. */
export async function validateOutput<O>(spec: OutputSpec<O>, candidate: unknown): Promise<ValidationResult<O>> {
  let value = candidate;
  if (spec.wrapped) {
    if (typeof value !== "object" || value === null || !("response" in value)) {
      return { ok: false, issues: 'expected an object with a "response" property' };
    }
    value = (value as { response: unknown }).response;
  }
  return spec.schema.validate(value);
}

/** Parses JSON out of model text: the whole text, a fenced block, or the outermost {...} / [...] span. */
export function extractJson(text: string): ValidationResult<unknown> {
  const attempts: string[] = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1] !== undefined) attempts.push(fenced[1].trim());
  for (const [open, close] of [
    ["{", "}"],
    ["[", "]"],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start !== -1 && end > start) attempts.push(text.slice(start, end + 1));
  }
  for (const attempt of attempts) {
    try {
      return { ok: true, value: JSON.parse(attempt) };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false, issues: "the answer is not valid JSON" };
}
