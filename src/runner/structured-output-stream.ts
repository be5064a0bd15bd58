import type { ModelStreamPart } from "../models/model.js";
import { OUTPUT_TOOL_NAME, type OutputSpec } from "./output-spec.js";
import type { OutputStreamEvent } from "./output-stream-event.js";
import { PartialJsonParser } from "./partial-json.js";

/**
 * The throttle that keeps the partials' cost linear: a partial copies the containers still open
 * (`PartialJsonParser.snapshotCost`), so one is sent after a delta that changed the output only
 * when that cost is at most `BASE_BUDGET + PER_CHARACTER × the characters read since the last
 * partial`; otherwise it waits for more text (the last partial is always sent). Summed over a
 * stream of n characters and d deltas, partials then copy at most 64·d + 8·n ≤ 72·n entries.
 * Outputs with fewer than 64 open entries get a partial after every delta that changes them.
 */
const BASE_BUDGET = 64;
const PER_CHARACTER = 8;

/**
 * Turns one model stream's parts (already redacted) into `partial-output` and `output-element`
 * events for a run with an output type: the arguments of the `final_result` call in `tool` mode
 * (function tools' arguments are ignored), the text in `native` and `prompted` mode (in `prompted`
 * mode, text before the first `{` or `[` of an object or array output is skipped). A wrapped
 * output (`{ response }`) streams the value inside. Text that cannot be JSON stops the partials of
 * that answer; a stream reset starts them over.
 */
export class StructuredOutputStream {
  readonly #spec: OutputSpec<unknown>;
  readonly #emit: (event: OutputStreamEvent) => void;
  #parser: PartialJsonParser | undefined;
  /** In `tool` mode: the `final_result` call being read. */
  #callId: string | undefined;
  /** In `prompted` mode: the character the output starts with, until it is found. */
  #seeking: string | undefined;
  #shown = -1;
  #received = 0;
  #elements: [number, unknown][] = [];

  constructor(spec: OutputSpec<unknown>, emit: (event: OutputStreamEvent) => void) {
    this.#spec = spec;
    this.#emit = emit;
    this.#reset();
  }

  /** Reads one part; the promise (when one is returned) settles once the elements it completed are checked and sent. */
  accept(part: ModelStreamPart): Promise<void> | undefined {
    const toolMode = this.#spec.mode === "tool";
    switch (part.type) {
      case "text-delta":
        if (toolMode) return undefined;
        this.#parser ??= this.#newParser();
        return this.#read(this.#parser, this.#skipToStart(part.text));
      case "tool-call-start":
        if (toolMode && part.toolName === OUTPUT_TOOL_NAME) {
          this.#reset();
          this.#callId = part.toolCallId;
          this.#parser = this.#newParser();
        }
        return undefined;
      case "tool-call-delta":
        if (this.#parser === undefined || part.toolCallId !== this.#callId) return undefined;
        return this.#read(this.#parser, part.argsTextDelta);
      case "tool-call-end":
        if (this.#parser === undefined || part.toolCallId !== this.#callId) return undefined;
        this.#callId = undefined;
        return this.#end(this.#parser);
      case "finish":
        return toolMode || this.#parser === undefined ? undefined : this.#end(this.#parser);
      case "stream-reset":
        this.#reset();
        return undefined;
      case "reasoning-delta":
        return undefined;
      default: {
        const unhandled: never = part;
        throw new TypeError(`unknown stream part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  #reset(): void {
    this.#parser = undefined;
    this.#callId = undefined;
    this.#shown = -1;
    this.#received = 0;
    this.#elements = [];
    const type = this.#spec.schema.jsonSchema.type;
    this.#seeking =
      this.#spec.mode !== "prompted" ? undefined : type === "object" ? "{" : type === "array" ? "[" : undefined;
  }

  #newParser(): PartialJsonParser {
    if (this.#spec.element === undefined) return new PartialJsonParser();
    return new PartialJsonParser({
      elementsAt: this.#spec.wrapped ? ["response"] : [],
      onElement: (index, value) => this.#elements.push([index, value]),
    });
  }

  #skipToStart(text: string): string {
    if (this.#seeking === undefined) return text;
    const start = text.indexOf(this.#seeking);
    if (start === -1) return "";
    this.#seeking = undefined;
    return text.slice(start);
  }

  #read(parser: PartialJsonParser, text: string): Promise<void> | undefined {
    if (parser.failed || parser.done || text === "") return undefined;
    parser.push(text);
    this.#received += text.length;
    return this.#publish(parser, false);
  }

  #end(parser: PartialJsonParser): Promise<void> | undefined {
    if (parser.failed) return undefined;
    parser.end();
    return this.#publish(parser, true);
  }

  #publish(parser: PartialJsonParser, last: boolean): Promise<void> | undefined {
    if (parser.failed) {
      this.#elements = [];
      return undefined;
    }
    const affordable = parser.snapshotCost <= BASE_BUDGET + PER_CHARACTER * this.#received;
    if (parser.version !== this.#shown && (last || parser.done || affordable)) {
      this.#shown = parser.version;
      this.#received = 0;
      const partial = this.#unwrap(parser.snapshot());
      if (partial !== undefined) this.#emit({ kind: "output", type: "partial-output", partial });
    }
    if (this.#elements.length === 0) return undefined;
    const elements = this.#elements;
    this.#elements = [];
    return this.#sendElements(elements);
  }

  #unwrap(value: unknown): unknown {
    if (!this.#spec.wrapped) return value;
    return typeof value === "object" && value !== null ? (value as { response?: unknown }).response : undefined;
  }

  async #sendElements(elements: readonly [number, unknown][]): Promise<void> {
    const schema = this.#spec.element;
    if (schema === undefined) return;
    for (const [index, value] of elements) {
      const checked = await schema.validate(value);
      if (checked.ok) this.#emit({ kind: "output", type: "output-element", index, element: checked.value });
    }
  }
}

/** The output stream of a run that streams and has an output type, else `undefined`. */
export function structuredOutputStream(
  spec: OutputSpec<unknown> | undefined,
  emit: ((event: OutputStreamEvent) => void) | undefined,
): StructuredOutputStream | undefined {
  return spec === undefined || emit === undefined ? undefined : new StructuredOutputStream(spec, emit);
}
