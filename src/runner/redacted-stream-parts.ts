import type { ModelStreamPart } from "../models/model.js";
import { longestSecretLength } from "../redaction/secret-registry.js";
import { TextHoldback } from "../redaction/text-holdback.js";

type DeltaPart = Extract<ModelStreamPart, { type: "text-delta" | "reasoning-delta" | "tool-call-delta" }>;

/**
 * A model stream with registered secrets redacted from its deltas (text, reasoning, tool-argument
 * fragments). A secret split across consecutive deltas of one kind is caught by holding back the
 * last (longest secret − 1) characters until the next delta; any other part (a tool call's start or
 * end, `finish`) first releases what is held. The stream itself when no secret is registered.
 */
export function redactStreamParts(parts: AsyncIterable<ModelStreamPart>): AsyncIterable<ModelStreamPart> {
  if (longestSecretLength() === 0) return parts;
  return { [Symbol.asyncIterator]: () => new RedactingIterator(parts[Symbol.asyncIterator]()) };
}

class RedactingIterator implements AsyncIterator<ModelStreamPart> {
  readonly #inner: AsyncIterator<ModelStreamPart>;
  readonly #ready: ModelStreamPart[] = [];
  readonly #holdback = new TextHoldback();
  /** The delta part whose text is held back (its kind and call id). */
  #open: DeltaPart | undefined;

  constructor(inner: AsyncIterator<ModelStreamPart>) {
    this.#inner = inner;
  }

  // Not an async function: a part already redacted is handed out without waiting on the model's
  // stream, and each part read costs one `then`, not an async call and an await.
  next(): Promise<IteratorResult<ModelStreamPart>> {
    const ready = this.#ready.shift();
    if (ready !== undefined) return Promise.resolve({ done: false, value: ready });
    try {
      return this.#inner.next().then(this.#received);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Takes one part of the model's stream; reads the next while nothing is ready to hand out. */
  readonly #received = (
    next: IteratorResult<ModelStreamPart>,
  ): IteratorResult<ModelStreamPart> | Promise<IteratorResult<ModelStreamPart>> => {
    if (next.done) this.#release();
    else this.#accept(next.value);
    const ready = this.#ready.shift();
    if (ready !== undefined) return { done: false, value: ready };
    return next.done ? next : this.#inner.next().then(this.#received);
  };

  // Straight to the model's stream, never queued behind a pending `next` (see consumeModelStream).
  return(value?: unknown): Promise<IteratorResult<ModelStreamPart>> {
    return this.#inner.return?.(value) ?? Promise.resolve({ done: true, value: undefined });
  }

  #accept(part: ModelStreamPart): void {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
      case "tool-call-delta": {
        if (this.#open !== undefined && !sameChannel(this.#open, part)) this.#release();
        this.#open = part;
        const text = this.#holdback.push(part.type === "tool-call-delta" ? part.argsTextDelta : part.text);
        if (text !== "") this.#ready.push(withText(part, text));
        return;
      }
      case "stream-reset":
        this.#holdback.discard();
        this.#open = undefined;
        this.#ready.push(part);
        return;
      case "tool-call-start":
      case "tool-call-end":
      case "finish":
        this.#release();
        this.#ready.push(part);
        return;
      default: {
        const unhandled: never = part;
        throw new TypeError(`unknown stream part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  #release(): void {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined || !this.#holdback.holding) return;
    this.#ready.push(withText(open, this.#holdback.flush()));
  }
}

function sameChannel(a: DeltaPart, b: DeltaPart): boolean {
  if (a.type !== b.type) return false;
  return a.type !== "tool-call-delta" || a.toolCallId === (b as typeof a).toolCallId;
}

function withText(part: DeltaPart, text: string): DeltaPart {
  return part.type === "tool-call-delta" ? { ...part, argsTextDelta: text } : { ...part, text };
}
