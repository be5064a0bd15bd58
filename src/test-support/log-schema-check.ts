import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dereference, type OutputUnit, type Schema, validate } from "@cfworker/json-schema";
import type { SessionEvent } from "../session/events.js";

/** The committed schema file (`npm run schema` regenerates it). */
export const LOG_SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schema", "session-log.json");

/** An event that does not match `schema/session-log.json`. */
export class LogSchemaViolation extends Error {
  override readonly name = "LogSchemaViolation";
}

/** Keywords that only say a nested schema failed; the leaves below them say why. */
const containers = new Set(["$ref", "allOf", "properties", "items", "prefixItems", "if", "then"]);

/**
 * A check of one event's JSON form against the schema, dereferenced once: an event is checked
 * against the envelope and its own type's data (custom types: the envelope), not tried against
 * every type. Throws `LogSchemaViolation` naming type, seq and the
 * failing paths. An event JSON cannot encode (a bigint, a cycle) is left to the stores' own check.
 */
export function sessionEventCheck(schemaFile = LOG_SCHEMA_FILE): (event: SessionEvent) => void {
  const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as { $defs: Record<string, Schema> };
  const { allOf: _byType, ...envelope } = schema.$defs.SessionEvent as Schema;
  const builtin = new Set((schema.$defs.BuiltinEventType as { enum: string[] }).enum);
  // One schema holding a check per type, dereferenced once: each check is the envelope with that type's data.
  const checks: Record<string, Schema> = { custom: envelope };
  for (const type of builtin) checks[type] = { ...envelope, allOf: [{ $ref: `#/$defs/${type}` }] };
  const lookup = dereference({ $defs: schema.$defs, checks } as Schema);
  return (event) => {
    let json: unknown;
    try {
      json = JSON.parse(JSON.stringify(event));
    } catch {
      return;
    }
    const check = checks[builtin.has(event.type) ? event.type : "custom"] as Schema;
    const result = validate(json, check, "2020-12", lookup, true);
    if (!result.valid) {
      throw new LogSchemaViolation(
        `session event ${JSON.stringify(event.type)} (seq ${event.seq}) does not match schema/session-log.json:\n  ${describe(result.errors)}`,
      );
    }
  };
}

function describe(errors: readonly OutputUnit[]): string {
  const leaves = errors.filter((error) => !containers.has(error.keyword) && error.error !== "False boolean schema.");
  const shown = (leaves.length > 0 ? leaves : errors).slice(0, 8);
  return shown.map((error) => `${error.instanceLocation}: ${error.error}`).join("\n  ");
}
