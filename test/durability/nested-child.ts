/**
 * Child process of the nested-call durability tests. Usage:
 *   node --import tsx src/durability/nested-child.ts <sqlite path> <sessionId> <effectsFile>
 * Runs the nested scenario (a code-mode program of four nested calls) on a new session. Env
 * NOUS_PAUSE_AT=<nested id>:<window> pauses there (prints `AT <window>`) for the parent to kill.
 * Prints `ACK <seq>` after every commit and `DONE <output>` or `ERROR <name> <message>` at the end.
 */
import { writeSync } from "node:fs";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { nestedAgent, nestedPausingStore, parseNestedPause } from "./nested-scenario.js";

const [path = "", sessionId = "s", effectsFile = ""] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);

async function main(): Promise<number> {
  const raw = new SqliteStore({ path });
  const pause = parseNestedPause(process.env.NOUS_PAUSE_AT);
  try {
    const agent = nestedAgent({ effectsFile, pause });
    // A short lease, so the test's resume waits little for this killed process's lease to expire.
    const lease = { ttlMs: 300 };
    const result = await agent.run("Pay", { sessionId, store: nestedPausingStore(raw, pause), deps: {}, lease });
    say(`DONE ${result.output}`);
    return 0;
  } catch (error) {
    say(`ERROR ${(error as Error).name} ${(error as Error).message.replaceAll("\n", " ")}`);
    return 1;
  } finally {
    await raw.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    say(`ERROR fatal ${String(error)}`);
    process.exit(1);
  },
);
