import type { JsonSchema } from "../models/model.js";

/** What the declarations need of a tool. */
export interface DeclaredTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const maxDepth = 12;

/** A property key as TypeScript writes it. */
function key(name: string): string {
  return identifier.test(name) ? name : JSON.stringify(name);
}

/** A JSDoc comment, or nothing, for a description (comment terminators neutralized). */
function doc(description: unknown, indent: string): string {
  if (typeof description !== "string" || description.trim() === "") return "";
  const lines = description.replaceAll("*/", "*\\/").trim().split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`).join("\n")}\n${indent} */\n`;
}

function isSchema(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 0 ? "never" : unique.join(" | ");
}

/** The TypeScript type of a JSON Schema (the subset tools use; anything else is `unknown`). */
export function schemaToType(schema: unknown, indent = "", depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema) || depth > maxDepth) return "unknown";
  if ("const" in schema) return JSON.stringify(schema.const) ?? "unknown";
  if (Array.isArray(schema.enum)) return union(schema.enum.map((item) => JSON.stringify(item) ?? "unknown"));
  const variants = (
    Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  ) as unknown[] | undefined;
  if (variants) return union(variants.map((item) => wrap(schemaToType(item, indent, depth + 1))));
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.map((item) => wrap(schemaToType(item, indent, depth + 1))).join(" & ") || "unknown";
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? undefined : [schema.type];
  if (types === undefined) {
    if (isSchema(schema.properties)) return objectType(schema, indent, depth);
    if (schema.items !== undefined) return arrayType(schema, indent, depth);
    return "unknown";
  }
  return union(
    types.map((type) => {
      switch (type) {
        case "string":
          return "string";
        case "number":
        case "integer":
          return "number";
        case "boolean":
          return "boolean";
        case "null":
          return "null";
        case "array":
          return arrayType(schema, indent, depth);
        case "object":
          return objectType(schema, indent, depth);
        default:
          return "unknown";
      }
    }),
  );
}

function wrap(type: string): string {
  return type.includes(" ") && !type.startsWith("{") ? `(${type})` : type;
}

function arrayType(schema: Record<string, unknown>, indent: string, depth: number): string {
  if (Array.isArray(schema.prefixItems)) {
    return `[${schema.prefixItems.map((item) => schemaToType(item, indent, depth + 1)).join(", ")}]`;
  }
  const item = schemaToType(schema.items, indent, depth + 1);
  return /^[\w"]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
}

function objectType(schema: Record<string, unknown>, indent: string, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${doc(isSchema(property) ? property.description : undefined, inner)}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${schemaToType(property, inner, depth + 1)};`,
  );
  const extra = schema.additionalProperties;
  if (isSchema(extra) || (extra === true && lines.length === 0)) {
    lines.push(`${inner}[key: string]: ${extra === true ? "unknown" : schemaToType(extra, inner, depth + 1)};`);
  }
  if (lines.length === 0) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/**
 * TypeScript declarations of the `tools` object a program sees: one async method per tool, its
 * argument typed from the tool's JSON Schema.
 */
export function toolDeclarations(tools: readonly DeclaredTool[], unlisted = false): string {
  const members = tools.map(
    (item) =>
      `${doc(item.description, "  ")}  ${key(item.name)}(args: ${schemaToType(item.inputSchema, "  ")}): Promise<unknown>;`,
  );
  if (unlisted)
    members.push(
      "  /** Every other tool of the agent, by name. */\n  [name: string]: (args: object) => Promise<unknown>;",
    );
  return `declare const tools: {\n${members.join("\n")}\n};`;
}
