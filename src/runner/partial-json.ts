/**
 * An incremental JSON parser for values that arrive in pieces (the structured output of a model
 * stream). Each character is read once, whatever the pieces; `snapshot()` gives the value as
 * parsed so far, copying only the containers still open (completed values are shared, never
 * changed again). The partial value follows these rules:
 *
 * - a string shows the characters received so far (escapes, `\uXXXX` included, once complete);
 * - a number shows only once it has ended (a `,`, `]`, `}` or whitespace follows, or `end()`):
 *   `12` of `123` is never shown;
 * - `true`, `false` and `null` show once complete;
 * - an object or array shows as soon as it opens; an object key shows once its value shows.
 *
 * So every partial is a prefix of the final value (strings are prefixes, containers hold prefixes
 * of their final entries), and after `end()` the value equals `JSON.parse` of the whole text.
 *
 * @example
 * const parser = new PartialJsonParser();
 * parser.push('{"title":"Du');
 * parser.snapshot(); // { title: "Du" }
 * parser.push('ne","year":196');
 * parser.snapshot(); // { title: "Dune" } (the year is not complete)
 * parser.push("5}");
 * parser.end(); // true
 */
export class PartialJsonParser {
  readonly #frames: Frame[] = [];
  #token: Token | undefined;
  #root: unknown;
  #hasRoot = false;
  #failed = false;
  #version = 0;
  #width = 0;
  /** Characters read plus entries copied by snapshots: the parser's total work. */
  work = 0;
  readonly #onElement: ((index: number, value: unknown) => void) | undefined;
  readonly #elementsAt: readonly string[] | undefined;

  /**
   * `onElement` is told of each complete element of the array found at `elementsAt` (a path of
   * object keys from the root; `[]` when the root is the array).
   */
  constructor(options: { elementsAt?: readonly string[]; onElement?: (index: number, value: unknown) => void } = {}) {
    this.#elementsAt = options.elementsAt;
    this.#onElement = options.onElement;
  }

  /** Whether the text so far is not a prefix of valid JSON (nothing more is read). */
  get failed(): boolean {
    return this.#failed;
  }

  /** Whether the root value is complete. */
  get done(): boolean {
    return this.#hasRoot;
  }

  /** Increases each time the partial value changes. */
  get version(): number {
    return this.#version;
  }

  /** What a snapshot costs now: the entries and depth of the containers still open. */
  get snapshotCost(): number {
    return this.#width + this.#frames.length;
  }

  /** Reads the next piece of text. Text after the complete root value is ignored (it is not parsed). */
  push(text: string): void {
    let index = 0;
    while (index < text.length && !this.#failed && !this.#hasRoot) index = this.#step(text, index);
    this.work += index;
  }

  /** Ends the text: a number still open completes. Returns whether the whole text was one valid JSON value. */
  end(): boolean {
    if (this.#failed) return false;
    if (this.#token?.kind === "number" && this.#frames.length === 0) this.#endNumber(this.#token);
    if (!this.#hasRoot) this.#failed = true;
    return this.#hasRoot;
  }

  /** The value parsed so far (`undefined` before anything shows). Later snapshots never change it. */
  snapshot(): unknown {
    if (this.#hasRoot) return this.#root;
    let child: unknown = this.#token?.kind === "string" && !this.#token.key ? this.#token.text : undefined;
    for (let level = this.#frames.length - 1; level >= 0; level -= 1) {
      const frame = this.#frames[level] as Frame;
      this.work += frame.count + 1;
      if (frame.kind === "array") {
        const copy = frame.value.slice();
        if (child !== undefined) copy.push(child);
        child = copy;
      } else {
        const copy = { ...frame.value };
        if (child !== undefined && frame.key !== undefined) setEntry(copy, frame.key, child);
        child = copy;
      }
    }
    return child;
  }

  /** Reads from `index`; returns where it stopped. */
  #step(text: string, index: number): number {
    const token = this.#token;
    if (token !== undefined) return this.#continueToken(token, text, index);
    const char = text.charCodeAt(index);
    if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) return index + 1;
    const frame = this.#frames.at(-1);
    const expecting = frame === undefined ? "value" : frame.expect;
    switch (expecting) {
      case "value":
      case "value-or-end":
        if (expecting === "value-or-end" && char === 0x5d) return this.#close(index);
        return this.#beginValue(char, index);
      case "key":
      case "key-or-end":
        if (expecting === "key-or-end" && char === 0x7d) return this.#close(index);
        if (char !== 0x22) return this.#fail(index);
        this.#token = { kind: "string", key: true, text: "", escape: undefined };
        return index + 1;
      case "colon":
        if (char !== 0x3a) return this.#fail(index);
        (frame as Frame).expect = "value";
        return index + 1;
      case "comma-or-end": {
        const current = frame as Frame;
        if (char === (current.kind === "array" ? 0x5d : 0x7d)) return this.#close(index);
        if (char !== 0x2c) return this.#fail(index);
        current.expect = current.kind === "array" ? "value" : "key";
        return index + 1;
      }
      default: {
        const unknown: never = expecting;
        throw new TypeError(`unknown parser state ${String(unknown)}`);
      }
    }
  }

  #beginValue(char: number, index: number): number {
    if (char === 0x22) {
      this.#token = { kind: "string", key: false, text: "", escape: undefined };
      this.#changed();
      return index + 1;
    }
    if (char === 0x7b || char === 0x5b) {
      const parent = this.#frames.at(-1);
      const path = this.#elementsAt;
      const depth = parent === undefined ? 0 : parent.pathDepth;
      const onPath =
        path !== undefined &&
        (parent === undefined ? true : parent.kind === "object" && depth >= 0 && path[depth] === parent.key);
      const pathDepth = onPath ? (parent === undefined ? 0 : depth + 1) : -1;
      const target = path !== undefined && char === 0x5b && pathDepth === path.length;
      this.#frames.push(
        char === 0x7b
          ? { kind: "object", value: {}, key: undefined, expect: "key-or-end", count: 0, pathDepth, target: false }
          : { kind: "array", value: [], expect: "value-or-end", count: 0, pathDepth, target },
      );
      this.#changed();
      return index + 1;
    }
    if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      this.#token = { kind: "number", text: "" };
      return index;
    }
    const literal = char === 0x74 ? "true" : char === 0x66 ? "false" : char === 0x6e ? "null" : undefined;
    if (literal === undefined) return this.#fail(index);
    this.#token = { kind: "literal", literal, matched: 0 };
    return index;
  }

  #continueToken(token: Token, text: string, index: number): number {
    switch (token.kind) {
      case "string":
        return this.#continueString(token, text, index);
      case "number": {
        let end = index;
        while (end < text.length && isNumberChar(text.charCodeAt(end))) end += 1;
        token.text += text.slice(index, end);
        if (end < text.length) this.#endNumber(token);
        return end;
      }
      case "literal": {
        let at = index;
        while (at < text.length && token.matched < token.literal.length) {
          if (text[at] !== token.literal[token.matched]) return this.#fail(at);
          token.matched += 1;
          at += 1;
        }
        if (token.matched === token.literal.length) {
          this.#token = undefined;
          this.#place(token.literal === "true" ? true : token.literal === "false" ? false : null);
        }
        return at;
      }
      default: {
        const unknown: never = token;
        throw new TypeError(`unknown token ${JSON.stringify(unknown)}`);
      }
    }
  }

  #continueString(token: StringToken, text: string, index: number): number {
    if (token.escape !== undefined) return this.#continueEscape(token, text, index);
    let end = index;
    while (end < text.length) {
      const char = text.charCodeAt(end);
      if (char === 0x22 || char === 0x5c) break;
      if (char < 0x20) return this.#fail(end);
      end += 1;
    }
    if (end > index) {
      token.text += text.slice(index, end);
      if (!token.key) this.#changed();
    }
    if (end === text.length) return end;
    if (text.charCodeAt(end) === 0x5c) {
      token.escape = "";
      return end + 1;
    }
    this.#token = undefined;
    if (token.key) {
      const frame = this.#frames.at(-1) as ObjectFrame;
      frame.key = token.text;
      frame.expect = "colon";
    } else this.#place(token.text, false); // shown whole already, as it grew
    return end + 1;
  }

  #continueEscape(token: StringToken, text: string, index: number): number {
    const sequence = token.escape as string;
    if (sequence === "") {
      const simple = ESCAPES[text[index] as string];
      if (simple !== undefined) {
        token.escape = undefined;
        token.text += simple;
        if (!token.key) this.#changed();
        return index + 1;
      }
      if (text[index] !== "u") return this.#fail(index);
      token.escape = "u";
      return index + 1;
    }
    const take = Math.min(5 - sequence.length, text.length - index);
    const hex = sequence + text.slice(index, index + take);
    if (!/^u[0-9a-fA-F]*$/.test(hex)) return this.#fail(index);
    if (hex.length < 5) {
      token.escape = hex;
      return index + take;
    }
    token.escape = undefined;
    token.text += String.fromCharCode(Number.parseInt(hex.slice(1), 16));
    if (!token.key) this.#changed();
    return index + take;
  }

  #endNumber(token: NumberToken): void {
    this.#token = undefined;
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(token.text)) {
      this.#failed = true;
      return;
    }
    this.#place(Number(token.text));
  }

  #close(index: number): number {
    const frame = this.#frames.pop() as Frame;
    this.#width -= frame.count;
    // Not a change: the open container showed the same entries.
    this.#place(frame.value, false);
    return index + 1;
  }

  /** Puts a complete value in its container (or makes it the root). */
  #place(value: unknown, changed = true): void {
    if (changed) this.#changed();
    const frame = this.#frames.at(-1);
    if (frame === undefined) {
      this.#root = value;
      this.#hasRoot = true;
      return;
    }
    frame.count += 1;
    this.#width += 1;
    frame.expect = "comma-or-end";
    if (frame.kind === "object") {
      setEntry(frame.value, frame.key as string, value);
      frame.key = undefined;
      return;
    }
    frame.value.push(value);
    if (frame.target) this.#onElement?.(frame.value.length - 1, value);
  }

  #changed(): void {
    this.#version += 1;
  }

  #fail(index: number): number {
    this.#failed = true;
    return index;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Sets an entry as `JSON.parse` does: `__proto__` becomes an own property, not the prototype. */
function setEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isNumberChar(char: number): boolean {
  // digits, '-', '+', '.', 'e', 'E'
  return (char >= 0x30 && char <= 0x39) || char === 0x2d || char === 0x2b || char === 0x2e || (char | 0x20) === 0x65;
}

interface FrameBase {
  expect: "value" | "value-or-end" | "key" | "key-or-end" | "colon" | "comma-or-end";
  /** Entries placed so far. */
  count: number;
  /** How many keys of `elementsAt` lead here (`-1`: off the path). */
  readonly pathDepth: number;
}

interface ObjectFrame extends FrameBase {
  readonly kind: "object";
  readonly value: Record<string, unknown>;
  key: string | undefined;
  readonly target: false;
}

interface ArrayFrame extends FrameBase {
  readonly kind: "array";
  readonly value: unknown[];
  /** The array whose elements are reported. */
  readonly target: boolean;
}

type Frame = ObjectFrame | ArrayFrame;

interface StringToken {
  readonly kind: "string";
  readonly key: boolean;
  text: string;
  /** Inside an escape: `""` after the backslash, `"u…"` while reading its hex digits. */
  escape: string | undefined;
}

interface NumberToken {
  readonly kind: "number";
  text: string;
}

type Token = StringToken | NumberToken | { readonly kind: "literal"; readonly literal: string; matched: number };
