import { createHash } from "node:crypto";
import { canonicalJson } from "../session/canonical-json.js";

/** The parts of an MCP tool definition that change what a call does or what the model is told. */
export interface HashedDefinition {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A stable SHA-256 of a tool definition: object keys are sorted, so key order does not matter. */
export function definitionHash(definition: HashedDefinition): string {
  const picked = {
    name: definition.name,
    title: definition.title ?? null,
    description: definition.description ?? null,
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema ?? null,
    annotations: definition.annotations ?? null,
  };
  return createHash("sha256").update(canonicalJson(picked)).digest("hex");
}
