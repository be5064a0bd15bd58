import { NoDefaultStoreError } from "../errors/no-default-store-error.js";
import type { SessionStore } from "../store/session-store.js";

/** In a browser bundle there is no default store: a session run needs an explicit one. */
export async function openDefaultStore(): Promise<SessionStore> {
  throw new NoDefaultStoreError({ runtime: "a browser or edge runtime" });
}
