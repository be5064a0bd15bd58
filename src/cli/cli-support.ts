import { type ParseArgsConfig, parseArgs } from "node:util";
import { identifierProblem, NousError, type SessionStore } from "../index.js";

/** The exit codes of every `nous` command. */
export const EXIT = Object.freeze({
  /** The command did what was asked. */
  ok: 0,
  /** The run failed (model, provider, tool or limit error) or the command could not complete. */
  failed: 1,
  /** Bad command line: unknown command or option, missing argument, unloadable agent file. */
  usage: 2,
  /** The run paused: a tool call is waiting for approval (`nous approvals`). */
  awaitingApproval: 3,
  /** The session or approval named does not exist. */
  notFound: 4,
  /** `nous sessions replay`: the replayed log differs from the recorded one. */
  replayMismatch: 5,
  /** The store is damaged (`nous sessions verify` found damage, a read met a damaged event) or is not a Nous store. */
  damaged: 6,
  /**
   * A package the command needs is not installed: an optional part's peer (`OptionalPeerMissingError`:
   * the inspector's hono, pg for a postgres:// store, the MCP SDK or QuickJS for an agent that uses
   * them) or the SQLite driver on Node.js 20 (`SqliteDriverMissingError`). The one line printed says
   * what to install.
   */
  missingPackage: 7,
  /** Interrupted by Ctrl-C (SIGINT). */
  interrupted: 130,
});

/** A problem with the command line: printed with the command's usage hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure that ends the command with a given exit code and message. */
export class CliExit extends Error {
  override readonly name = "CliExit";
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** Where a command writes, and how (colour only on a TTY with NO_COLOR unset). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readonly color: boolean;
  readonly interactive: boolean;
}

export function processIo(): CliIo {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    color: Boolean(process.stdout.isTTY) && !noColor && process.env.TERM !== "dumb",
    interactive: Boolean(process.stderr.isTTY),
  };
}

const codes = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] };

/** ANSI styling that is a no-op when colour is off. */
export function paint(io: Pick<CliIo, "color">) {
  const style =
    (name: keyof typeof codes) =>
    (text: string): string => {
      const [on, off] = codes[name];
      return io.color ? `\u001b[${on}m${text}\u001b[${off}m` : text;
    };
  return {
    bold: style("bold"),
    dim: style("dim"),
    red: style("red"),
    green: style("green"),
    yellow: style("yellow"),
    cyan: style("cyan"),
  };
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The parsed result of `parseCommand` for the options `T` (named, so declarations can be emitted). */
export type ParsedCommand<T extends Options> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: T & { help: { type: "boolean"; short: "h" } };
    allowPositionals: true;
    strict: true;
  }>
>;

/** `parseArgs` (strict) that turns its errors into `UsageError`. `--help`/`-h` is always accepted. */
export function parseCommand<T extends Options>(args: readonly string[], options: T): ParsedCommand<T> {
  try {
    return parseArgs({
      args: [...args],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.replace(/\. To specify .*$/s, "") : String(error));
  }
}

/** A whole number option, or a usage error naming it. */
export function integerOption(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min) {
    throw new UsageError(`--${name} must be a whole number >= ${min}, got "${value}"`);
  }
  return number;
}

/** Parses a JSON option value or fails with a usage error naming it. */
export function jsonOption(name: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UsageError(`--${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Prints a value as one JSON document on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** The exit code for an error that ended a run or command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof CliExit) return error.code;
  if (NousError.isInstance(error)) {
    if (error.code === "approval_pending") return EXIT.awaitingApproval;
    if (error.code === "optional_peer_missing" || error.code === "sqlite_driver_missing") return EXIT.missingPackage;
    if (error.code === "cancelled") return EXIT.interrupted;
    if (error.code === "session_not_found") return EXIT.notFound;
    if (error.code === "event_corrupted" || error.code === "store_unrecognized") return EXIT.damaged;
    if (error.code === "unknown_model" || error.code === "invalid_definition" || error.code === "agent_mismatch")
      return EXIT.usage;
  }
  return EXIT.failed;
}

/** A one-line description of an error for the terminal. */
export function describeError(error: unknown): string {
  if (NousError.isInstance(error)) return terminalText(`${error.message} [${error.code}]`);
  return terminalText(error instanceof Error ? error.message : String(error));
}

/** A short human duration: "820 ms", "3.4 s". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Text from a model, a tool or a stored session, made safe to print: every control character except
 * newline and tab (ESC, BEL, CR, DEL, the C1 range) is shown as a visible symbol (␛, ␇, ␍, ␡, or
 * `\x9b`), so it cannot clear the screen, set the window title, hide a hyperlink or overwrite a line.
 */
export function terminalText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/\r\n/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return `\\x${code.toString(16)}`;
  });
}

/** Echoed input, shortened: at most `max` characters, with an ellipsis and the full length when cut. */
export function shortened(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Refuses (a usage error) a session id no store accepts: too long, or with control characters. */
export function checkSessionIdArgument(what: string, id: string): string {
  const problem = identifierProblem(id);
  if (problem !== undefined) throw new UsageError(`${what}: the session id ${problem}`);
  return id;
}

/** Fails with exit code 4 when the session does not exist. */
export async function existingSession(store: SessionStore, id: string) {
  const summary = await store.get(id);
  if (summary === undefined) throw new CliExit(EXIT.notFound, `Session "${id}" not found`);
  return summary;
}
