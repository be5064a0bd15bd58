import type { ContextUpdate } from "../context/context-update.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { JsonSchema, ToolDefinition } from "../models/model.js";
import type { RunContext } from "../session/run-context.js";
import { type CompiledSchema, compileSchema, type InferSchema, type SchemaInput } from "./schema.js";
import type { ToolContent } from "./tool-content.js";

/**
 * What `execute` may return: a plain value, the value with a context update for the run's deps, or
 * `toolContent(...)`: the value with images, files or audio for the model (and optionally an update).
 */
export type ToolReturn<R, D extends object> =
  | R
  | { readonly result: R; readonly update: ContextUpdate<D> }
  | ToolContent<R, D>;

/** Decides, per call, whether a human (or policy) must approve it before it runs. */
export type NeedsApproval<A, D extends object> =
  | boolean
  | ((args: A, context: RunContext<D>) => boolean | Promise<boolean>);

export interface ToolConfig<S extends SchemaInput, R, D extends object> {
  /** Letters, digits, `_` and `-`, at most 64 characters; unique within an agent. */
  name: string;
  description: string;
  /** A zod 4 schema (or any Standard Schema with JSON Schema export), or a JSON Schema object. */
  input: S;
  /**
   * Runs the call. What it returns (the result and the update's values) is recorded as JSON:
   * normalized as `JSON.parse(JSON.stringify(…))` would, or the call fails naming the path of a value
   * JSON cannot hold (a bigint, a cycle, a Map…). Throwing fails the call; throw `ToolRetryError`
   * to ask the model to retry, or `ToolFailedError` with an update to fail and still record what it did.
   */
  execute(args: InferSchema<S>, context: RunContext<D>): ToolReturn<R, D> | Promise<ToolReturn<R, D>>;
  /** The call fails (and the model is told) after this long. */
  timeoutMs?: number;
  /**
   * How many times in a row the model may retry this tool after invalid arguments or a `ToolRetryError`
   * (default 2); a call that succeeds resets the count.
   */
  retries?: number;
  needsApproval?: NeedsApproval<InferSchema<S>, D>;
  /** Safe to run twice with the same arguments (used when resuming a run after a crash). */
  idempotent?: boolean;
  /**
   * Run again on resume, like an idempotent tool, because all its effects go through nested calls
   * (`context.seam.callTool`), which the run journals: in the re-run, a nested call with a recorded
   * result returns it without running, and one in doubt follows the in-doubt rules. `codeMode` sets it.
   * Only for a tool whose nested calls are deterministic given their recorded results.
   */
  replayable?: boolean;
}

/** A tool an agent can call. Build one with `tool(...)`. */
export interface Tool<A = unknown, R = unknown, D extends object = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly timeoutMs: number | undefined;
  readonly retries: number;
  readonly idempotent: boolean;
  /** See `ToolConfig.replayable`; absent means false. */
  readonly replayable?: boolean;
  readonly needsApproval: NeedsApproval<A, D>;
  readonly schema: CompiledSchema<A>;
  execute(args: A, context: RunContext<D>): ToolReturn<R, D> | Promise<ToolReturn<R, D>>;
}

/** A tool of any argument and result type usable by an agent whose deps are `D`. */
// biome-ignore lint/suspicious/noExplicitAny: tools of every argument type must fit one list; args are validated at run time
export type AnyTool<D extends object = Record<string, unknown>> = Tool<any, unknown, D>;

/** A tool's `retries` when it sets none; also the run-wide budget of calls naming an unknown tool. */
export const DEFAULT_TOOL_RETRIES = 2;

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool. Argument types flow from the schema into `execute`; annotate the context to get
 * typed deps and a typed `ContextUpdate`.
 *
 * @example
 * const addTodo = tool({
 *   name: "add_todo",
 *   description: "Add a todo item",
 *   input: z.object({ text: z.string().min(1) }),
 *   execute: async ({ text }, context: RunContext<Deps>) => ({
 *     result: { added: text },
 *     update: ContextUpdate.new<Deps>().append("todos", text).logEvent("db_write", { text }),
 *   }),
 * });
 */
export function tool<S extends SchemaInput, R, D extends object = Record<string, unknown>>(
  config: ToolConfig<S, R, D>,
): Tool<InferSchema<S>, R, D> {
  checkToolName(config.name);
  if (typeof config.description !== "string") {
    throw new DefinitionError({ message: `Tool "${config.name}": description must be a string` });
  }
  if (typeof config.execute !== "function") {
    throw new DefinitionError({ message: `Tool "${config.name}": execute must be a function` });
  }
  const schema = compileSchema(config.input, `Tool "${config.name}" input`);
  const retries = config.retries ?? DEFAULT_TOOL_RETRIES;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new DefinitionError({ message: `Tool "${config.name}": retries must be a whole number >= 0` });
  }
  if (config.timeoutMs !== undefined && !(config.timeoutMs > 0)) {
    throw new DefinitionError({ message: `Tool "${config.name}": timeoutMs must be positive` });
  }
  return Object.freeze({
    name: config.name,
    description: config.description,
    inputSchema: schema.jsonSchema,
    timeoutMs: config.timeoutMs,
    retries,
    idempotent: config.idempotent ?? false,
    replayable: config.replayable ?? false,
    needsApproval: config.needsApproval ?? false,
    schema,
    execute: config.execute,
  });
}

/** Throws a `DefinitionError` unless `name` is provider-safe. */
export function checkToolName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !toolName.test(name)) {
    throw new DefinitionError({
      message: `Invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, "_" or "-"`,
    });
  }
}

/** Checks names are valid and unique and indexes the tools by name. */
export function indexTools<D extends object>(
  tools: readonly AnyTool<D>[],
  reserved: readonly string[] = [],
): Map<string, AnyTool<D>> {
  const byName = new Map<string, AnyTool<D>>();
  for (const item of tools) {
    checkToolName(item.name);
    if (byName.has(item.name) || reserved.includes(item.name)) {
      throw new DefinitionError({ message: `Duplicate tool name "${item.name}"` });
    }
    byName.set(item.name, item);
  }
  return byName;
}

/** The definition sent to the model. */
export function toToolDefinition(item: { name: string; description: string; inputSchema: JsonSchema }): ToolDefinition {
  return { name: item.name, description: item.description, inputSchema: item.inputSchema };
}
