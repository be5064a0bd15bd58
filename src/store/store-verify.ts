import { EventCorruptedError, SessionNotFoundError } from "../errors/store-errors.js";
import type { SessionStore } from "./session-store.js";
import type { SessionVerification, StorageCheck, StoreVerification } from "./store-verification.js";

export type { SessionVerification, StorageCheck, StoreVerification } from "./store-verification.js";

/** How many events `verifySessions` reads at a time. */
const PAGE = 1000;

/**
 * Verifies sessions through the store's own verified `read`, a page at a time (each page seeded by
 * the checksum of the event before it). With `sessionId`, only that session
 * (`SessionNotFoundError` when it does not exist); else every id `allIds` yields.
 *
 * @example
 * const report = await verifySessions(store, undefined, async () => ["s1", "s2"]);
 */
export async function verifySessions(
  store: Pick<SessionStore, "read" | "get">,
  sessionId: string | undefined,
  allIds: () => Promise<readonly string[]>,
  storage?: () => StorageCheck,
): Promise<StoreVerification> {
  let ids: readonly string[];
  if (sessionId !== undefined) {
    if ((await store.get(sessionId)) === undefined) throw new SessionNotFoundError({ sessionId });
    ids = [sessionId];
  } else {
    ids = await allIds();
  }
  const sessions: SessionVerification[] = [];
  for (const id of ids) sessions.push(await verifyOne(store, id));
  const damagedSessions = sessions.filter((session) => session.status === "damaged").length;
  const checked = sessionId === undefined ? storage?.() : undefined;
  return {
    ok: damagedSessions === 0 && (checked?.ok ?? true),
    sessions,
    checkedSessions: sessions.length,
    checkedEvents: sessions.reduce((total, session) => total + session.events, 0),
    damagedSessions,
    ...(checked === undefined ? {} : { storage: checked }),
  };
}

async function verifyOne(store: Pick<SessionStore, "read">, sessionId: string): Promise<SessionVerification> {
  let events = 0;
  try {
    for (;;) {
      const page = await store.read(sessionId, { fromSeq: events + 1, limit: PAGE });
      events += page.length;
      if (page.length < PAGE) return { status: "ok", sessionId, events };
    }
  } catch (error) {
    if (!(error instanceof EventCorruptedError) || error.sessionId !== sessionId) throw error;
    const { seq, damage, detail, message } = error;
    return { status: "damaged", sessionId, events: Math.max(0, seq - 1), seq, damage, detail, message };
  }
}
