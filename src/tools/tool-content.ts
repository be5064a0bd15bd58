import type { ContextUpdate } from "../context/context-update.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { ToolResultPart } from "../session/messages.js";

const marker = Symbol.for("nous.toolContent");

/**
 * What a tool returns to give the model images, files or audio beside its result: made by
 * `toolContent`. Recorded on the `tool_result` event as `content` (base64 `data` + `mediaType`,
 * the same parts as user content) and sent in each provider's form.
 */
export interface ToolContent<R = unknown, D extends object = Record<string, unknown>> {
  readonly [marker]: true;
  readonly result: R;
  readonly content: readonly ToolResultPart[];
  readonly update?: ContextUpdate<D>;
}

/**
 * A tool's return with content parts for the model: `result` (default `""`) is recorded and sent
 * as before; `content` (text, image, file, audio parts with base64 `data`) follows it — Anthropic
 * in the `tool_result` block, OpenAI Responses in `function_call_output.output`, Gemini in the
 * function response, OpenAI Chat in a user message after the turn's tool messages. `update` works as
 * in `{ result, update }`. A part of the wrong shape throws a `DefinitionError` (the call fails).
 *
 * @example
 * const screenshot = tool({
 *   name: "screenshot",
 *   description: "Take a screenshot of the page",
 *   input: z.object({ url: z.string() }),
 *   execute: async ({ url }) =>
 *     toolContent([{ type: "image", data: await capture(url), mediaType: "image/png" }], { result: `Screenshot of ${url}` }),
 * });
 */
export function toolContent<R = string, D extends object = Record<string, unknown>>(
  content: readonly ToolResultPart[],
  options: { readonly result?: R; readonly update?: ContextUpdate<D> } = {},
): ToolContent<R, D> {
  if (!Array.isArray(content)) throw new DefinitionError({ message: "toolContent: content must be an array of parts" });
  const parts = content.map(checkPart);
  return Object.freeze({
    [marker]: true as const,
    result: (options.result === undefined ? "" : options.result) as R,
    content: Object.freeze(parts),
    ...(options.update === undefined ? {} : { update: options.update }),
  });
}

/**
 * True for a value `toolContent` made (checked structurally, so other copies of Nous count too).
 *
 * @example
 * const returned = await someTool.execute(args, context);
 * if (isToolContent(returned)) console.log(returned.result, returned.content.length);
 */
export function isToolContent<D extends object = Record<string, unknown>>(
  value: unknown,
): value is ToolContent<unknown, D> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/** A part as recorded: only its own fields, each checked. */
function checkPart(part: ToolResultPart, index: number): ToolResultPart {
  const problem = (what: string) =>
    new DefinitionError({ message: `toolContent: part ${index} ${what} (${JSON.stringify(part)?.slice(0, 80)})` });
  if (typeof part !== "object" || part === null) throw problem("is not an object");
  if (part.type === "text") {
    if (typeof part.text !== "string") throw problem("needs a string text");
    return { type: "text", text: part.text };
  }
  if (part.type !== "image" && part.type !== "file" && part.type !== "audio") {
    throw problem('has a type other than "text", "image", "file" or "audio"');
  }
  if (typeof part.data !== "string" || part.data === "") throw problem("needs base64 data (a non-empty string)");
  if (typeof part.mediaType !== "string" || !part.mediaType.includes("/")) throw problem("needs a mediaType");
  if (part.type === "file" && part.filename !== undefined) {
    if (typeof part.filename !== "string") throw problem("has a filename that is not a string");
    return { type: "file", data: part.data, mediaType: part.mediaType, filename: part.filename };
  }
  return { type: part.type, data: part.data, mediaType: part.mediaType };
}
