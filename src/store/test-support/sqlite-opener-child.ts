/**
 * Test child: waits for a shared start time, opens the SQLite store at a path (creating it if no
 * racer has yet), appends one event to its own session and exits 0; any failure exits 1 with it.
 * Arguments: path, driver, session id, start time (epoch ms).
 */
import type { SqliteDriverName } from "../sqlite-driver.js";
import { SqliteStore } from "../sqlite-store.js";

async function main(): Promise<void> {
  const [path, driver, sessionId, startAt] = process.argv.slice(2);
  if (path === undefined || driver === undefined || sessionId === undefined)
    throw new Error("usage: path driver session start");
  while (Date.now() < Number(startAt)) await new Promise((resolve) => setTimeout(resolve, 1));
  const store = new SqliteStore({ path, driver: driver as SqliteDriverName });
  await store.append(
    sessionId,
    [{ seq: 1, at: new Date().toISOString(), type: "note", data: { sessionId } }] as never,
    {
      expectedLastSeq: 0,
    },
  );
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
