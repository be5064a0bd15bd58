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

/**
 * A provider-defined tool passed in `settings.providerOptions` (a web search, an MCP server, a
 * custom tool) has the name of one of the agent's function tools, or of another provider tool: the
 * model could not tell them apart, and a call could run the wrong one. Rename one of them.
 *
 * @example
 * try { await agent.run("…") } catch (error) {
 *   if (error instanceof ToolNameConflictError) console.log(error.provider, error.toolName);
 * }
 */
export class ToolNameConflictError extends UserError {
  readonly code = "tool_name_conflict";
  readonly provider: string;
  readonly toolName: string;

  constructor(fields: { provider: string; toolName: string }) {
    super({
      message: `${fields.provider}: two tools are named "${fields.toolName}" (a providerOptions tool and a function tool, or two providerOptions tools): rename one`,
    });
    this.provider = fields.provider;
    this.toolName = fields.toolName;
  }
}

/**
 * `TestModel` cannot build a value for a JSON Schema: a keyword it does not satisfy (a `pattern` its
 * sample does not match, bounds no value meets, `uniqueItems` it cannot make distinct). Names the
 * keyword and the JSON Pointer of the schema that holds it.
 *
 * @example
 * try { await agent.run("go") } catch (error) {
 *   if (error instanceof UnsupportedSchemaError) console.log(error.keyword, error.path); // "pattern" "#/properties/id"
 * }
 */
export class UnsupportedSchemaError extends UserError {
  readonly code = "unsupported_schema";
  readonly keyword: string;
  readonly path: string;

  constructor(fields: { keyword: string; path: string; detail: string }) {
    super({ message: `TestModel cannot sample the schema at ${fields.path}: ${fields.keyword}: ${fields.detail}` });
    this.keyword = fields.keyword;
    this.path = fields.path;
  }
}

/**
 * An approval was decided with edited arguments that fail the tool's input schema: the decision is
 * refused and nothing is recorded. `issues` is the schema's complaint; decide again with valid ones.
 *
 * @example
 * try { await decideApproval(store, approval, { type: "edit", args }, { agent }) } catch (error) {
 *   if (error instanceof ApprovalArgumentsError) console.log(error.toolName, error.issues);
 * }
 */
export class ApprovalArgumentsError extends UserError {
  readonly code = "invalid_approval_arguments";
  readonly toolName: string;
  readonly issues: string;

  constructor(fields: { toolName: string; issues: string }) {
    super({ message: `Invalid edited arguments for tool "${fields.toolName}": ${fields.issues}` });
    this.toolName = fields.toolName;
    this.issues = fields.issues;
  }
}
