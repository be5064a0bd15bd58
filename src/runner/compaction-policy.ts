import { DefinitionError } from "../errors/user-errors.js";
import type { Model, ModelSettings } from "../models/model.js";

/** What the summarization call is told (its system text) unless the policy says otherwise. */
export const DEFAULT_SUMMARY_INSTRUCTIONS =
  "You compact a conversation between a user and an AI assistant that uses tools. Write a summary that " +
  "lets the assistant carry on without the earlier messages: the user's goals and requests, decisions " +
  "made, facts learned from tool results (names, ids, numbers, paths), work done and work still open. " +
  "Be concise and specific; write plain text, no preamble. Do not call tools.";

/** The user message that ends the summarization call's messages. */
export const SUMMARY_REQUEST = "Summarize the conversation above, as instructed.";

/** The result a dropped tool result is shown as unless the policy says otherwise. */
export const DEFAULT_DROPPED_PLACEHOLDER =
  "[tool result removed from the context to save space; it is kept in the session log]";

/**
 * Compaction by summary (see `summarizeHistory`): when the next request would exceed `maxTokens`,
 * a model call summarizes all but the last `keepTurns` turns, and the summary replaces them.
 */
export interface SummarizePolicy {
  readonly type: "summarize";
  /** The token budget of a request (instructions, tools and messages). */
  readonly maxTokens: number;
  /** How many recent turns stay raw (a turn: a user message, or a model answer and its tool results). */
  readonly keepTurns: number;
  /** The model that writes the summary; default: the agent's. */
  readonly model?: Model | string;
  /** The summarization call's system text. */
  readonly instructions: string;
  /** Settings of the summarization call (default: none). */
  readonly settings?: ModelSettings;
}

/**
 * Compaction without a model call (see `dropToolResults`): the results of all but the `keepResults`
 * most recent tool calls are shown as `placeholder`.
 */
export interface DropToolResultsPolicy {
  readonly type: "drop_tool_results";
  readonly keepResults: number;
  /** Drop only when the next request would exceed this many tokens (default: whenever there are more results). */
  readonly maxTokens?: number;
  readonly placeholder: string;
}

/** How an agent keeps its requests within the model's context window (the agent option `compaction`). */
export type CompactionPolicy = SummarizePolicy | DropToolResultsPolicy;

/**
 * A compaction policy that summarizes: before a request whose estimated size (see
 * `estimateRequestTokens`: the provider's count of the last request plus an estimate of what came
 * since) exceeds `maxTokens`, the agent's model (or `model`) is asked, in a call of its own that
 * is recorded in the log (`purpose: "compaction"`, its usage and cost counted), to summarize every
 * turn but the last `keepTurns` (default 2); a `compaction` event then puts the summary in their
 * place. The log keeps every original event; cuts fall only between turns, so no tool call is
 * parted from its result. Throws `DefinitionError` for a budget or count that is not a whole number.
 *
 * @example
 * const agent = new Agent({
 *   model: "anthropic:claude-sonnet-4-5",
 *   tools: [search],
 *   compaction: summarizeHistory({ maxTokens: 100_000, keepTurns: 4, model: "anthropic:claude-haiku-4-5" }),
 * });
 */
export function summarizeHistory(options: {
  maxTokens: number;
  keepTurns?: number;
  model?: Model | string;
  instructions?: string;
  settings?: ModelSettings;
}): SummarizePolicy {
  check("maxTokens", options.maxTokens, 1);
  const keepTurns = options.keepTurns ?? 2;
  check("keepTurns", keepTurns, 1);
  return Object.freeze({
    type: "summarize",
    maxTokens: options.maxTokens,
    keepTurns,
    instructions: options.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
}

/**
 * A compaction policy that needs no model call: before each request, the results of the tool calls
 * older than the `keep` most recent (default 5) are replaced by a short placeholder — only once the
 * request would exceed `maxTokens`, when given. The calls stay, each with its (placeholder) result,
 * so every provider accepts the conversation; a `compaction` event records which were dropped, and
 * the log keeps the real results.
 *
 * @example
 * const agent = new Agent({ model: "openai:gpt-5-mini", tools: [readFile], compaction: dropToolResults({ keep: 3 }) });
 */
export function dropToolResults(
  options: { keep?: number; maxTokens?: number; placeholder?: string } = {},
): DropToolResultsPolicy {
  const keepResults = options.keep ?? 5;
  check("keep", keepResults, 0);
  if (options.maxTokens !== undefined) check("maxTokens", options.maxTokens, 1);
  return Object.freeze({
    type: "drop_tool_results",
    keepResults,
    placeholder: options.placeholder ?? DEFAULT_DROPPED_PLACEHOLDER,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  });
}

function check(name: string, value: number, minimum: number): void {
  if (!Number.isInteger(value) || value < minimum) {
    throw new DefinitionError({
      message: `Compaction option ${name} must be a whole number >= ${minimum}, got ${value}`,
    });
  }
}
