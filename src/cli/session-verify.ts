import type { SessionStore, StoreVerification } from "../index.js";
import { CliExit, type CliIo, EXIT, paint, printJson } from "./cli-support.js";

/**
 * `nous sessions verify [id]`: reads back every event of one session or of the whole store and
 * checks its checksum chain (SQLite: also `PRAGMA integrity_check`). Prints one line per session
 * and a summary; exit 6 when anything is damaged.
 */
export async function verifySessionsCommand(
  io: CliIo,
  store: SessionStore,
  id: string | undefined,
  json: boolean,
): Promise<number> {
  if (store.verify === undefined) throw new CliExit(EXIT.failed, "This session store cannot verify its events");
  const report = await store.verify(id);
  if (json) printJson(io, report);
  else printReport(io, report);
  return report.ok ? EXIT.ok : EXIT.damaged;
}

function printReport(io: CliIo, report: StoreVerification): void {
  const colors = paint(io);
  const width = Math.max(0, ...report.sessions.map((session) => session.sessionId.length));
  for (const session of report.sessions) {
    const name = session.sessionId.padEnd(width);
    if (session.status === "ok") {
      io.out(`${colors.green("ok     ")}  ${name}  ${session.events} events\n`);
    } else {
      io.out(`${colors.red("DAMAGED")}  ${name}  seq ${session.seq} (${session.damage}): ${session.detail}\n`);
    }
  }
  if (report.storage !== undefined) {
    const verdict = report.storage.ok ? colors.green("ok") : colors.red(report.storage.messages.join("; "));
    io.out(`storage check (SQLite integrity_check, foreign_key_check): ${verdict}\n`);
  }
  const sessions = `${report.checkedSessions} session${report.checkedSessions === 1 ? "" : "s"}`;
  const damage = report.damagedSessions === 0 ? "none damaged" : `${report.damagedSessions} damaged`;
  const storage = report.storage?.ok === false ? ", storage check failed" : "";
  const line = `Verified ${sessions}, ${report.checkedEvents} events: ${damage}${storage}.`;
  io.out(`${report.ok ? colors.green(line) : colors.red(line)}\n`);
}
