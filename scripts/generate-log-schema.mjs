// Generates schema/session-log.json (JSON Schema draft 2020-12) from the TypeScript definitions in
// src/session/events.ts, the one definition the code uses. Run `npm run schema` after changing them;
// src/session/log-schema.test.ts fails while the committed file is out of date.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createGenerator } from "ts-json-schema-generator";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const LOG_SCHEMA_PATH = join(root, "schema", "session-log.json");

const DRAFT = "https://json-schema.org/draft/2020-12/schema";
/** Keywords that only describe; a schema made of these alone accepts anything. */
const annotations = new Set(["description", "title", "$comment", "examples", "default", "deprecated"]);

/** The schema of a session log and of one event, as a plain object. Takes a few seconds (a TS program). */
export function buildLogSchema() {
  const generator = createGenerator({
    path: join(root, "src", "session", "events.ts"),
    tsconfig: join(root, "tsconfig.json"),
    type: "*",
    expose: "export",
    topRef: false,
    jsDoc: "extended",
    skipTypeCheck: true,
    additionalProperties: false,
  });
  const dataMap = generator.createSchema("EventDataMap");
  const custom = generator.createSchema("CustomEvent");

  const defs = {};
  for (const [name, schema] of Object.entries(dataMap.definitions ?? {})) defs[name] = toDataSchema(schema);
  const builtinTypes = Object.keys(dataMap.properties);
  for (const type of builtinTypes) {
    const { description, ...data } = toDataSchema(dataMap.properties[type]);
    defs[type] = {
      ...(description === undefined ? {} : { description }),
      type: "object",
      properties: { type: { const: type }, data },
      required: ["type", "data"],
    };
  }
  defs.BuiltinEventType = { description: "The type names of built-in events.", enum: builtinTypes };

  const { $schema: _draft, definitions: _none, description: _custom, ...envelope } = custom;
  defs.SessionEvent = {
    description:
      "One entry of the session log: the metadata of EventMeta with a `type` and its `data`. A built-in type's data " +
      "must match that type's definition (see the $defs named after each type); any other type is a custom event " +
      "(recorded by `logEvent`) whose data may be any JSON value.",
    ...envelope,
    allOf: builtinTypes.map((type) => ({
      if: { properties: { type: { const: type } }, required: ["type"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
      then: { $ref: `#/$defs/${type}` },
    })),
  };

  return rewriteRefs({
    $schema: DRAFT,
    title: "Nous session log",
    description:
      "A session log: the events of one session in seq order. Generated from src/session/events.ts by " +
      "`npm run schema`; `#/$defs/SessionEvent` is the schema of one event.",
    type: "array",
    items: { $ref: "#/$defs/SessionEvent" },
    $defs: defs,
  });
}

/** The file's text: the schema as 2-space JSON with a final newline. */
export function renderLogSchema(schema = buildLogSchema()) {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/**
 * A definition as the JSON form of its type: a property typed `unknown` may be absent (undefined is
 * one of its values, and JSON drops it), and tuples use 2020-12's `prefixItems`.
 */
function toDataSchema(schema) {
  if (Array.isArray(schema)) return schema.map(toDataSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "items" && Array.isArray(value)) out.prefixItems = toDataSchema(value);
    else if (key === "additionalItems") out.items = toDataSchema(value);
    else out[key] = toDataSchema(value);
  }
  if (Array.isArray(out.required) && out.properties !== undefined) {
    out.required = out.required.filter((name) => !acceptsAnything(out.properties[name]));
    if (out.required.length === 0) delete out.required;
  }
  return out;
}

function acceptsAnything(schema) {
  return schema !== undefined && Object.keys(schema).every((key) => annotations.has(key));
}

function rewriteRefs(value) {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof inner === "string" ? inner.replace("#/definitions/", "#/$defs/") : rewriteRefs(inner);
  }
  return out;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  writeFileSync(LOG_SCHEMA_PATH, renderLogSchema());
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`wrote ${LOG_SCHEMA_PATH} in ${seconds} s`);
}
