import { writeFile } from "node:fs/promises";
import {
  NousError,
  resolveBlobs,
  SESSION_STATUSES,
  type SessionStatus,
  type SessionStore,
  serializeLog,
  sessionUsage,
} from "../index.js";
import {
  type CliIo,
  checkSessionIdArgument,
  EXIT,
  existingSession,
  integerOption,
  paint,
  parseCommand,
  printJson,
  UsageError,
} from "./cli-support.js";
import { openStore, storeLocation } from "./open-store.js";
import { formatCost } from "./render-stream.js";
import { replaySession } from "./session-replay.js";
import { resumeSession } from "./session-resume.js";
import { renderTimeline } from "./session-timeline.js";
import { verifySessionsCommand } from "./session-verify.js";

export const SESSIONS_HELP = `Usage: nous sessions <subcommand> [options]

Subcommands:
  list                       sessions, newest first, with their tokens and cost (sub-agents included)
      --status s[,s]         running, interrupted, completed, failed, awaiting_approval, idle
                             (interrupted: its run stopped midway and no process holds it
                             any more, e.g. after a crash once the lease expired: resume it)
      --agent name           exact agent name
      --search text          substring of the id, agent or model
      --limit n              page size, 1 … 1000 (default 20)
      --cursor c             the next page (printed after a full page)
  show <id>                  the session's timeline: surface events (what the model sees)
                             and bookkeeping events (audit, usage, lifecycle) told apart,
                             then its usage: its own plus each sub-agent session's, once
  fork <id> --at <seq>       copy events 1 … seq into a new session (--new-id id)
  resume <id>                continue the session's interrupted run (a crash, a fork made
                             mid-run) with the agent that ran it; a lease left by a killed
                             process of this machine is waited out (up to a minute)
      --agent file           the file of the agent that ran it (default: the built-in assistant;
                             another agent is refused, exit 2, unless --allow-agent-change)
      --export name          the agent file's export (default: default)
      --model provider:model the model (default: NOUS_MODEL, else the offline model)
      --rerun <call>         run this call in doubt again (started, no recorded result)
      --abandon <call>       record this call in doubt as failed, without running it
      --rerun-in-doubt       run every call in doubt again
      --abandon-in-doubt     record every call in doubt as failed
                             (on a terminal, calls without a decision are asked about;
                             otherwise the command refuses, exit 2, and records nothing)
  replay <id> [agent-file]   re-run the recording offline (ReplayModel) with the built-in
                             assistant's tools or the agent file's (a factory export), and
                             report whether the log matches (exit 5 when it differs)
      --export name          the agent file's export (default: default)
  export <id>                the serialized log (JSON, schemaVersion 1) to stdout, or --out file;
                             images and files carry their data (self-contained)
  delete <id>                remove the session and its events
  verify [id]                read back every event of the session (or of every session) and
                             check its checksum chain: a changed, missing or reordered event
                             is reported with its seq (SQLite: also PRAGMA integrity_check).
                             One line per session, then a summary; exit 6 when anything is
                             damaged

Options for every subcommand:
  --store path|url           SQLite file or postgres:// URL (default: NOUS_STORE, else .nous/sessions.db)
  --json                     machine-readable output
  -h, --help                 this help

Exit codes: 0 ok, 1 failed, 2 usage error, 3 resumed run waits for approval, 4 session not
found, 5 replay differs, 6 the store is damaged (or is not a Nous store).
`;

const OPTIONS = {
  store: { type: "string" },
  json: { type: "boolean" },
  status: { type: "string" },
  agent: { type: "string" },
  search: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  at: { type: "string" },
  "new-id": { type: "string" },
  out: { type: "string" },
  export: { type: "string" },
  model: { type: "string" },
  "allow-agent-change": { type: "boolean" },
  rerun: { type: "string", multiple: true },
  abandon: { type: "string", multiple: true },
  "rerun-in-doubt": { type: "boolean" },
  "abandon-in-doubt": { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseCommand<typeof OPTIONS>>["values"];

/** `nous sessions …`. */
export async function sessionsCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, OPTIONS);
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    io.out(SESSIONS_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const handlers: Record<string, (store: SessionStore) => Promise<number>> = {
    list: (store) => list(io, store, values, rest),
    show: (store) => show(io, store, values, rest),
    fork: (store) => fork(io, store, values, rest),
    resume: (store) => resumeSession(io, store, rest[0] as string, values),
    replay: (store) => replaySession(io, store, requireId(rest, "replay", 2), rest[1], values),
    export: (store) => exportLog(io, store, values, rest),
    delete: (store) => remove(io, store, values, rest),
    verify: (store) => verifySessionsCommand(io, store, rest[0], values.json === true),
  };
  const handler = handlers[sub];
  if (handler === undefined) throw new UsageError(`Unknown subcommand "sessions ${sub}"`);
  if (sub === "verify") requireId(rest, sub, 1, true);
  else if (sub !== "replay") requireId(rest, sub, sub === "list" ? 0 : 1);
  const store = await openStore(storeLocation(values.store));
  try {
    return await handler(store);
  } finally {
    await store.close();
  }
}

function requireId(rest: readonly string[], sub: string, max: number, optional = false): string {
  if (rest.length > max) throw new UsageError(`Too many arguments for "sessions ${sub}"`);
  if (max === 0) return "";
  const id = rest[0];
  if (id === undefined && optional) return "";
  if (id === undefined) throw new UsageError(`"sessions ${sub}" needs a session id`);
  return checkSessionIdArgument(`sessions ${sub}`, id);
}

function statuses(value: string | undefined): SessionStatus[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(",").map((item) => item.trim());
  for (const item of list) {
    if (!SESSION_STATUSES.includes(item as SessionStatus)) {
      throw new UsageError(`--status: "${item}" is not one of ${SESSION_STATUSES.join(", ")}`);
    }
  }
  return list as SessionStatus[];
}

async function list(io: CliIo, store: SessionStore, values: Values, _rest: readonly string[]): Promise<number> {
  const limit = integerOption("limit", values.limit, 1) ?? 20;
  if (limit > 1000) throw new UsageError("--limit must be at most 1000");
  let page: Awaited<ReturnType<SessionStore["list"]>>;
  try {
    page = await store.list({
      status: statuses(values.status),
      agent: values.agent,
      search: values.search,
      limit,
      cursor: values.cursor,
    });
  } catch (error) {
    if (NousError.isInstance(error) && error.code === "invalid_store_argument") throw new UsageError(error.message);
    throw error;
  }
  // Each session's total usage, its sub-agents included (the same computation as show and the inspector).
  const sessions = [];
  for (const summary of page.sessions) {
    const used = await sessionUsage(store, summary.sessionId);
    sessions.push({ ...summary, usage: used.total, cost: used.cost });
  }
  if (values.json) {
    printJson(io, { ...page, sessions });
    return EXIT.ok;
  }
  const colors = paint(io);
  if (sessions.length === 0) {
    io.err("No sessions.\n");
    return EXIT.ok;
  }
  const rows = sessions.map((session) => [
    session.sessionId,
    session.status,
    session.agent ?? "-",
    session.model ?? "-",
    String(session.eventCount),
    String(session.usage.totalTokens),
    formatCost(session.cost).replace(/^cost /, ""),
    session.updatedAt.replace("T", " ").slice(0, 19),
  ]);
  const header = ["SESSION", "STATUS", "AGENT", "MODEL", "EVENTS", "TOKENS", "COST", "UPDATED"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  io.out(`${colors.bold(line(header))}\n`);
  for (const row of rows) io.out(`${line(row)}\n`);
  if (page.nextCursor !== undefined) {
    io.err(colors.dim(`More: nous sessions list --cursor ${page.nextCursor} (with the same filters)\n`));
  }
  return EXIT.ok;
}

async function show(io: CliIo, store: SessionStore, values: Values, rest: readonly string[]): Promise<number> {
  const id = rest[0] as string;
  const summary = await existingSession(store, id);
  const events = await store.read(id);
  const usage = await sessionUsage(store, id, events);
  if (values.json) printJson(io, { summary, usage, events });
  else renderTimeline(io, summary, events, usage);
  return EXIT.ok;
}

async function fork(io: CliIo, store: SessionStore, values: Values, rest: readonly string[]): Promise<number> {
  const id = rest[0] as string;
  const atSeq = integerOption("at", values.at, 0);
  if (atSeq === undefined) throw new UsageError('"sessions fork" needs --at <seq>');
  const summary = await existingSession(store, id);
  if (atSeq > summary.lastSeq)
    throw new UsageError(`--at ${atSeq} is past the session's last seq (${summary.lastSeq})`);
  let forked: string;
  try {
    forked = await store.fork(id, { atSeq, newSessionId: values["new-id"] });
  } catch (error) {
    if (NousError.isInstance(error) && error.code === "session_exists") throw new UsageError(error.message);
    throw error;
  }
  if (values.json) printJson(io, { sessionId: forked, parentSessionId: id, forkedAtSeq: atSeq });
  else io.out(`${forked}\n`);
  if (!values.json) io.err(`Forked ${id} at seq ${atSeq} into ${forked}\n`);
  return EXIT.ok;
}

async function exportLog(io: CliIo, store: SessionStore, values: Values, rest: readonly string[]): Promise<number> {
  const id = rest[0] as string;
  await existingSession(store, id);
  // Self-contained: binary parts carry their data again (the store keeps them by hash).
  const text = serializeLog(await resolveBlobs(store, await store.read(id)));
  if (values.out === undefined) {
    io.out(`${text}\n`);
    return EXIT.ok;
  }
  await writeFile(values.out, `${text}\n`);
  if (values.json) printJson(io, { sessionId: id, out: values.out, bytes: Buffer.byteLength(text) + 1 });
  else io.err(`Wrote ${values.out}\n`);
  return EXIT.ok;
}

async function remove(io: CliIo, store: SessionStore, values: Values, rest: readonly string[]): Promise<number> {
  const id = rest[0] as string;
  const deleted = await store.delete(id);
  if (values.json) printJson(io, { sessionId: id, deleted });
  else io.err(deleted ? `Deleted ${id}\n` : `Session "${id}" not found\n`);
  return deleted ? EXIT.ok : EXIT.notFound;
}
