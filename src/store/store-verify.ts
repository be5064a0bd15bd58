import { EventCorruptedError, SessionNotFoundError } from "../errors/store-errors.js";
import { type BlobStore, firstBlobDamage } from "./blob-refs.js";
import type { SessionStore } from "./session-store.js";
import type { SessionVerification, StorageCheck, StoreVerification } from "./store-verification.js";

export type { SessionVerification, StorageCheck, StoreVerification } from "./store-verification.js";

/** How many events `verifySessions` reads at a time. */
const PAGE = 1000;

/**
 * Verifies sessions through the store's own verified `read`, a page at a time (each page seeded by
 * the checksum of the event before it), and every blob an event refers to (present, and its bytes
 * hashing to its name; each blob read once). With `sessionId`, only that session
 * (`SessionNotFoundError` when it does not exist); else every id `allIds` yields.
 *
 * @example
 * const report = await verifySessions(store, undefined, async () => ["s1", "s2"]);
 */
export async function verifySessions(
  store: Pick<SessionStore, "read" | "get"> & BlobStore,
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
  const blobs = new Map<string, "blob_missing" | "blob_mismatch" | "ok">();
  for (const id of ids) sessions.push(await verifyOne(store, id, blobs));
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

async function verifyOne(
  store: Pick<SessionStore, "read"> & BlobStore,
  sessionId: string,
  blobs: Map<string, "blob_missing" | "blob_mismatch" | "ok">,
): Promise<SessionVerification> {
  let events = 0;
  try {
    for (;;) {
      const page = await store.read(sessionId, { fromSeq: events + 1, limit: PAGE });
      const broken = await firstBlobDamage(store, page, blobs);
      if (broken !== undefined) {
        const { seq, hash, damage } = broken;
        const detail = damage === "blob_missing" ? `blob ${hash} is missing` : `blob ${hash} does not match its hash`;
        const message = `The session store holds a damaged event: session "${sessionId}", seq ${seq}: ${detail}`;
        return { status: "damaged", sessionId, events: seq - 1, seq, damage, detail, message };
      }
      events += page.length;
      if (page.length < PAGE) return { status: "ok", sessionId, events };
    }
  } catch (error) {
    if (!(error instanceof EventCorruptedError) || error.sessionId !== sessionId) throw error;
    const { seq, damage, detail, message } = error;
    return { status: "damaged", sessionId, events: Math.max(0, seq - 1), seq, damage, detail, message };
  }
}
