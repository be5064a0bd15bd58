import { UserError } from "./nous-error.js";

/**
 * A session run was asked for (`sessionId`) without a `store` on a runtime with no default store:
 * the default is SQLite in `.nous/sessions.db`, which browsers and edge workers cannot open. Pass a
 * store: `MemoryStore` for one page's life, or your own `SessionStore`.
 *
 * @example
 * await agent.run("hi", { sessionId: "s1", store: new MemoryStore() });
 */
export class NoDefaultStoreError extends UserError {
  readonly code = "no_default_store";
  /** Where it ran: "a browser or edge runtime". */
  readonly runtime: string;

  constructor(fields: { runtime: string }) {
    super({
      message: `A session run needs a store, and ${fields.runtime} has no default one (SQLite in .nous/sessions.db): pass { store: new MemoryStore() } or your own SessionStore`,
    });
    this.runtime = fields.runtime;
  }
}
