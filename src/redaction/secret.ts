import { secretPlaceholder } from "./placeholder.js";
import { noteSecretMarker, registerSecretsIn } from "./secret-registry.js";

const brand = Symbol.for("nous.secret");

/**
 * A value marked secret with `secret(value)`. It serializes (`JSON.stringify`, `String`, `console.log`)
 * as its placeholder, so wherever it is recorded — a tool result, a `logEvent`, a deps value written
 * by an update — the record holds `[secret:sha256:…]`; `reveal()` gives the value back in process.
 */
export class Secret<T = string> {
  readonly [brand] = true;
  readonly #value: T;
  /** What the record holds instead of the value. */
  readonly placeholder: string;

  constructor(value: T) {
    this.#value = value;
    this.placeholder = secretPlaceholder(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));
    registerSecretsIn(value);
    noteSecretMarker();
  }

  /** The value itself. */
  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return this.placeholder;
  }

  toString(): string {
    return this.placeholder;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.placeholder;
  }

  /** True for a `Secret`, even one made by another installed copy of the package. */
  static isInstance(value: unknown): value is Secret<unknown> {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

/**
 * Marks a value secret: the session log, the stream, errors and the logger show a placeholder for
 * it, never the value. Its strings (6 characters or longer) are registered too (see
 * `registerSecret`), so a copy of them elsewhere — echoed by the model, quoted in an error — is
 * redacted as well.
 *
 * @example
 * const token = tool({
 *   name: "issue_token", description: "Issues an access token", input: z.object({}),
 *   execute: async () => ({ token: secret(await vault.issue()) }), // the log holds { token: "[secret:sha256:…]" }
 * });
 */
export function secret<T>(value: T): Secret<T> {
  return new Secret(value);
}
