/**
 * Test child: imports the `nous/sqlite` entry, reports whether better-sqlite3 loaded at import, then
 * opens a store in its temporary folder and prints one JSON line: the driver it got, or the error.
 */
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NousError } from "../../errors/nous-error.js";
import { SqliteStore } from "../../sqlite.js";

const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((key) => key.includes("better-sqlite3"));

async function main(): Promise<void> {
  const betterSqliteAtImport = loaded();
  const warnings: string[] = [];
  process.on("warning", (warning) => warnings.push(`${warning.name}: ${warning.message}`));
  try {
    const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), "nous-driver-")), "sessions.db") });
    await store.append("s", [{ seq: 1, at: new Date().toISOString(), type: "note", data: {} }] as never, {
      expectedLastSeq: 0,
    });
    const events = await store.read("s");
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 20)); // warnings are emitted on a later tick
    console.log(JSON.stringify({ betterSqliteAtImport, driver: store.driver, events: events.length, warnings }));
  } catch (error) {
    const fields = NousError.isInstance(error) ? (error as NousError & { installCommand?: string }) : undefined;
    console.log(
      JSON.stringify({
        betterSqliteAtImport,
        error: {
          name: (error as Error).name,
          code: fields?.code,
          fault: fields?.fault,
          installCommand: fields?.installCommand,
          message: (error as Error).message,
        },
      }),
    );
  }
}

void main();
