import type { SessionStore } from "../store/session-store.js";

/**
 * Opens the default store: SQLite at `.nous/sessions.db` (the driver the runtime has). Bundlers
 * building for the browser take `default-store.browser.ts` instead (package.json `browser` field),
 * so no SQLite or `node:` module is bundled there.
 */
export async function openDefaultStore(): Promise<SessionStore> {
  const { SqliteStore } = await import("../store/sqlite-store.js");
  return new SqliteStore();
}
