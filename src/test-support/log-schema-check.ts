import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";
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
 * A check of one event's JSON form against the schema, compiled once: one validator per built-in
 * type (the envelope and that type's data) and one for custom types, so an event is checked by one
 * validator, not tried against every type. Throws `LogSchemaViolation` naming type, seq and the
 * failing paths. An event JSON cannot encode (a bigint, a cycle) is left to the stores' own check.
 */
export function sessionEventCheck(schemaFile = LOG_SCHEMA_FILE): (event: SessionEvent) => void {
  const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as { $defs: Record<string, Schema> };
  const defs = schema.$defs;
  const { allOf: _byType, ...envelope } = defs.SessionEvent as Schema;
  const builtin = new Set((defs.BuiltinEventType as { enum: string[] }).enum);
  const validators = new Map<string, Validator>();
  const validatorFor = (type: string): Validator => {
    const key = builtin.has(type) ? type : "";
    let validator = validators.get(key);
    if (validator === undefined) {
      const typed = key === "" ? {} : { allOf: [{ $ref: `#/$defs/${key}` }] };
      validator = new Validator({ $defs: defs, ...envelope, ...typed } as Schema, "2020-12", true);
      validators.set(key, validator);
    }
    return validator;
  };
  return (event) => {
    let json: unknown;
    try {
      json = JSON.parse(JSON.stringify(event));
    } catch {
      return;
    }
    const result = validatorFor(String(event.type)).validate(json);
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
