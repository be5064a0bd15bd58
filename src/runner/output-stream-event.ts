/**
 * A value as it may look while its JSON is still arriving: objects may lack any property, arrays
 * may lack their last elements, strings may be cut short (numbers and booleans show only whole).
 *
 * @example
 * type Draft = PartialValue<{ title: string; tags: string[] }>; // { title?: string; tags?: string[] }
 */
export type PartialValue<T> = T extends readonly (infer E)[]
  ? PartialValue<E>[]
  : T extends object
    ? { [K in keyof T]?: PartialValue<T[K]> }
    : T;

/**
 * The element type of an array output type (`unknown` for any other).
 *
 * @example
 * type Book = OutputElement<{ title: string }[]>; // { title: string }
 */
export type OutputElement<O> = O extends readonly (infer E)[] ? E : unknown;

/**
 * The structured output (an agent's `outputType`) as it streams in. Stream-only, like deltas:
 * derived from the (redacted) deltas of the final answer, never logged.
 *
 * - `partial-output`: the output parsed so far, after each delta that changed it (see
 *   `PartialJsonParser` for what shows when); a new answer (a retry, a stream reset) starts over.
 * - `output-element`: when the output type is an array, each element once its JSON is complete
 *   and it passed the element schema (an invalid element is not sent; the final check decides).
 * - `output`: the validated final output, just before `run_completed` (which records it too).
 *
 * @example
 * for await (const event of agent.stream("List three books")) {
 *   if (event.kind !== "output") continue;
 *   if (event.type === "partial-output") render(event.partial);
 *   else if (event.type === "output-element") console.log(event.index, event.element.title);
 *   else console.log("done", event.output);
 * }
 */
export type OutputStreamEvent<O = unknown> =
  | { readonly kind: "output"; readonly type: "partial-output"; readonly partial: PartialValue<O> }
  | {
      readonly kind: "output";
      readonly type: "output-element";
      readonly index: number;
      readonly element: OutputElement<O>;
    }
  | { readonly kind: "output"; readonly type: "output"; readonly output: O };
