/** Test support: several processes opening one SQLite store file at the same moment. */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runScript, type ScriptOutcome } from "../../test-support/node-script.js";
import type { SqliteDriverName } from "../sqlite-driver.js";

const child = join(dirname(fileURLToPath(import.meta.url)), "sqlite-opener-child.ts");

/**
 * Starts `count` processes that each open the store at `path` through `driver` at one shared instant
 * (the file does not exist yet, so they race to create it) and append to session `p<index>`.
 */
export async function spawnStoreOpeners(
  driver: SqliteDriverName,
  path: string,
  count: number,
): Promise<ScriptOutcome[]> {
  const startAt = Date.now() + 1500; // time for every process to start and wait
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      runScript(child, { args: [path, driver, `p${index}`, String(startAt)] }),
    ),
  );
}
