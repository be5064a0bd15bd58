#!/usr/bin/env node
/**
 * `nous`: the command-line tool. Run an agent, chat with it, inspect, fork, replay and export
 * sessions, decide approvals, and open the web inspector. Built on the public API only.
 */
import {
  type CliIo,
  describeError,
  EXIT,
  exitCodeOf,
  paint,
  processIo,
  terminalText,
  UsageError,
} from "./cli-support.js";

export const MAIN_HELP = `Usage: nous <command> [options]

Commands:
  run [agent-file] "prompt"     run an agent once and stream its answer
  chat [agent-file]             an interactive conversation on one session
  sessions <subcommand>         list | show | fork | resume | replay | export | delete | verify
                                (sessions resume <id> [--agent FILE]: continue a run that was
                                interrupted, e.g. killed, or a session forked mid-run)
  approvals <subcommand>        list | approve | reject (then the run resumes)
  inspect                       open the web inspector on the session store
  submit --agent FILE "prompt"  queue a run for a fleet of workers (--wait, --follow)
  worker --agent FILE           run queued runs (--concurrency n); SIGTERM drains

Every command takes --help. Common options: --store path|postgres-url (default:
NOUS_STORE, else .nous/sessions.db), --json (machine-readable output).
The model comes from --model provider:model, else NOUS_MODEL, else the rule-based offline model.

Exit codes:
  0    ok
  1    the run failed (model, provider, tool or limit error) or the command failed
  2    usage error (unknown command or option, missing argument, unloadable agent file)
  3    the run is waiting for approval (see nous approvals)
  4    session or approval not found
  5    nous sessions replay: the replayed log differs from the recording
  6    the session store is damaged (nous sessions verify, or a damaged event was read)
       or is not a Nous store
  7    a package the command needs is not installed (the SQLite driver on Node.js 20,
       pg, the inspector's hono, an agent's MCP SDK or QuickJS): the line says what to install
  130  interrupted (Ctrl-C)
`;

type Command = (io: CliIo, args: readonly string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./run-command.js")).runCommand,
  chat: async () => (await import("./chat-command.js")).chatCommand,
  sessions: async () => (await import("./sessions-command.js")).sessionsCommand,
  approvals: async () => (await import("./approvals-command.js")).approvalsCommand,
  inspect: async () => (await import("./inspect-command.js")).inspectCommand,
  submit: async () => (await import("./fleet-command.js")).submitCommand,
  worker: async () => (await import("./fleet-command.js")).workerCommand,
};

/** Runs the CLI with `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    if (name === "help" && rest[0] !== undefined && rest[0] in commands) return main([rest[0], "--help"], io);
    io.out(MAIN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    const { createRequire } = await import("node:module");
    const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };
    io.out(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const load = commands[name];
  try {
    if (load === undefined) throw new UsageError(`Unknown command "${name}"`);
    return await (await load())(io, rest);
  } catch (error) {
    const colors = paint(io);
    if (error instanceof UsageError) {
      io.err(`${colors.red("nous:")} ${terminalText(error.message)}\n`);
      io.err(`Run "nous ${load === undefined ? "" : `${name} `}--help" for usage.\n`);
    } else {
      io.err(`${colors.red("nous:")} ${describeError(error)}\n`);
      if (process.env.NOUS_DEBUG && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    }
    return exitCodeOf(error);
  }
}

const invokedDirectly = (() => {
  const script = process.argv[1];
  if (script === undefined) return false;
  return /(^|[\\/])(main\.(ts|js)|nous)$/.test(script);
})();

if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`nous: ${describeError(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
