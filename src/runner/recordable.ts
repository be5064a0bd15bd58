import { ContextUpdate } from "../context/context-update.js";
import type { ContextOperation } from "../context/operations.js";
import type { ContextUpdateError } from "../errors/context-update-error.js";
import { NonJsonValueError } from "../errors/non-json-value-error.js";
import { toJsonValue } from "../session/json-value.js";
import type { ToolResultPart } from "../session/messages.js";

/** How a tool call ended, as the run records it: a result (or error text) and what the call changed. */
export interface Outcome<D extends object> {
  result: unknown;
  isError: boolean;
  update?: ContextUpdate<D> | undefined;
  /** Images, files or text for the model beside the result (a tool's `toolContent`); only on a success. */
  content?: readonly ToolResultPart[] | undefined;
}

/**
 * The outcome made recordable, before anything of it is recorded, folded or shown to a hook or a
 * program: its result and every value of its update JSON-normalized (`toJsonValue`), so the
 * in-memory deps and messages are always what the log projects to. A result JSON cannot hold makes
 * the call fail — an error result naming the path — while its update, which says what the tool did,
 * is still recorded; an update JSON cannot hold is dropped whole (an update is atomic) and the call
 * fails naming the operation and path. The same for top-level and nested calls, with or without a store.
 */
export function recordable<D extends object>(toolName: string, outcome: Outcome<D>): Outcome<D> {
  let { result, isError } = outcome;
  try {
    result = toJsonValue(result);
  } catch (error) {
    if (!(error instanceof NonJsonValueError)) throw error;
    result = `Tool "${toolName}" failed: its result is not JSON data at ${error.path}: ${error.reason}`;
    isError = true;
  }
  const content = outcome.content !== undefined && !isError ? { content: outcome.content } : {};
  if (outcome.update === undefined) return { result, isError, ...content };
  const update = recordableUpdate(outcome.update);
  if (update instanceof ContextUpdate) return { result, isError, update, ...content };
  const problem = `Tool "${toolName}" failed: ${update.message}; nothing of the update was applied`;
  return { result: isError ? `${String(result)}; and ${problem}` : problem, isError: true };
}

/** A result a hook put in place of the tool's, made recordable like the tool's own. */
export function recordableResult(toolName: string, result: unknown, isError: boolean): Outcome<never> {
  return recordable<never>(toolName, { result, isError });
}

/** The error result of a call whose update the reducer refused (after the failure it already had, if any). */
export function invalidUpdate(toolName: string, error: ContextUpdateError, failure: unknown): string {
  const problem = `Tool "${toolName}" returned an invalid context update (nothing was applied): ${error.message}`;
  return failure === undefined ? problem : `${String(failure)}; and ${problem}`;
}

/** The update with every value JSON-normalized (itself when they all are JSON data), or why not. */
function recordableUpdate<D extends object>(update: ContextUpdate<D>): ContextUpdate<D> | NonJsonValueError {
  const operations = update.operations();
  let normalized: ContextOperation[] | undefined;
  for (const [index, operation] of operations.entries()) {
    let next: ContextOperation;
    try {
      next = normalizeOperation(operation);
    } catch (error) {
      if (!(error instanceof NonJsonValueError)) throw error;
      return new NonJsonValueError({
        path: error.path,
        reason: error.reason,
        subject: `its context update's operation ${index} (${describe(operation)})`,
      });
    }
    if (next !== operation) normalized ??= operations.slice(0, index);
    normalized?.push(next);
  }
  return normalized === undefined ? update : ContextUpdate.fromOperations<D>(normalized);
}

function normalizeOperation(operation: ContextOperation): ContextOperation {
  switch (operation.op) {
    case "set":
    case "merge": {
      const value = toJsonValue(operation.value);
      return value === operation.value ? operation : ({ ...operation, value } as ContextOperation);
    }
    case "append": {
      const item = toJsonValue(operation.item);
      return item === operation.item ? operation : { ...operation, item };
    }
    case "log_event": {
      const data = toJsonValue(operation.data);
      return data === operation.data ? operation : { ...operation, data };
    }
    case "delete":
      return operation;
    default: {
      const unhandled: never = operation;
      throw new TypeError(`unknown operation ${JSON.stringify(unhandled)}`);
    }
  }
}

function describe(operation: ContextOperation): string {
  return operation.op === "log_event" ? `log_event "${operation.type}"` : `${operation.op} "${operation.key}"`;
}
