import { UserError } from "./nous-error.js";

/** A "provider:model" string names a provider that is not registered. */
export class UnknownModelError extends UserError {
  readonly code = "unknown_model";
  readonly model: string;

  constructor(fields: { model: string; known: readonly string[] }) {
    super({
      message: `Unknown model "${fields.model}": use "provider:model" with one of ${fields.known.map((name) => `"${name}"`).join(", ")}, or pass a Model instance`,
    });
    this.model = fields.model;
  }
}

/** A tool, agent or option is defined wrongly (bad tool name, duplicate names, invalid schema). */
export class DefinitionError extends UserError {
  readonly code = "invalid_definition";
}
