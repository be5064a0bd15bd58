import { createInterface } from "node:readline";
import { type ApprovalVerdict, agentMismatch, decideApproval, pendingApprovalsOf } from "../index.js";
import { type CliIo, EXIT, paint, parseCommand, terminalText, UsageError } from "./cli-support.js";
import { AGENT_OPTIONS, type PreparedSession, prepareSession } from "./run-command.js";
import { reportOutcome, resumeTurn, runTurn, type TurnOutcome } from "./run-turn.js";

export const CHAT_HELP = `Usage: nous chat [agent-file] [options]

An interactive conversation on one session: every turn sees the history of the earlier ones.

  agent-file            as for nous run (default: the built-in assistant)

Options:
  --model provider:model   the model (default: NOUS_MODEL, else the rule-based offline model)
  --session id             continue this session (default: a new id, printed)
  --store path|url         SQLite file or postgres:// URL (default: NOUS_STORE, else .nous/sessions.db)
  --deps file.json         initial state deps of a new session
  --max-iterations n       model requests allowed per turn
  --export name            the agent file's export (default: default)
  --allow-agent-change     continue a session another agent ran (recorded as agent_changed)
  -h, --help               this help

In the chat:
  Ctrl-C                   cancel the running answer (the session is kept)
  Ctrl-C at the prompt, or twice within 1.5 s: quit (exit code 130)
  Ctrl-D or /exit          quit (exit code 0)
  /approve, /reject [why]  decide the approvals a paused run waits for, then resume it
  /session                 print the session id

Exit codes: 0 quit, 2 usage error, 130 interrupted.
`;

const DOUBLE_PRESS_MS = 1500;

/** `nous chat`: a read-eval loop over one session. Ctrl-C cancels the current run, not the chat. */
export async function chatCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, AGENT_OPTIONS);
  if (values.help) {
    io.out(CHAT_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError("nous chat takes at most one agent file");
  if (values.json) throw new UsageError("nous chat has no --json output; use nous run --json");
  const session = await prepareSession(io, positionals[0], values);
  const colors = paint(io);
  io.err(colors.dim("Ctrl-C cancels an answer; Ctrl-C at the prompt or Ctrl-D quits; /approve, /reject, /exit.\n"));

  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
  rl.setPrompt(colors.bold("you › "));
  let controller: AbortController | undefined;
  let running: Promise<unknown> | undefined;
  let lastInterrupt = 0;
  let exitCode: number | undefined;

  const quit = async (code: number) => {
    exitCode = code;
    controller?.abort(new Error("the chat was closed"));
    if (running !== undefined) await Promise.race([running, new Promise((done) => setTimeout(done, 2000))]);
    rl.close();
  };
  const onInterrupt = () => {
    const now = Date.now();
    const double = now - lastInterrupt < DOUBLE_PRESS_MS;
    lastInterrupt = now;
    if (controller !== undefined && !controller.signal.aborted && !double) {
      io.err(colors.yellow("\n^C cancelling the answer (Ctrl-C again to quit)\n"));
      controller.abort(new Error("interrupted by the user"));
      return;
    }
    io.err("\n");
    void quit(EXIT.interrupted);
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);

  const turn = async (work: (signal: AbortSignal) => Promise<TurnOutcome>) => {
    controller = new AbortController();
    const startedAt = Date.now();
    const task = work(controller.signal);
    running = task;
    const outcome = await task;
    running = undefined;
    controller = undefined;
    reportOutcome(io, outcome, session.sessionId, startedAt, session.source.agentFile);
  };

  try {
    rl.prompt();
    for await (const raw of rl) {
      if (exitCode !== undefined) break;
      const line = raw.trim();
      if (line === "/exit" || line === "/quit") break;
      if (line === "/session") io.out(`${session.sessionId}\n`);
      else if (line === "/approve" || line.startsWith("/reject")) {
        const verdict: ApprovalVerdict =
          line === "/approve" ? { type: "approve" } : { type: "reject", reason: line.slice(7).trim() || undefined };
        await turn((signal) => decideAll(io, session, verdict, signal));
      } else if (line !== "") {
        io.out(colors.cyan("nous › "));
        await turn((signal) =>
          runTurn(io, session.agent, line, {
            sessionId: session.sessionId,
            store: session.store,
            deps: session.deps,
            signal,
            allowAgentChange: session.allowAgentChange,
            usageLimits:
              session.maxIterations !== undefined && !session.source.acceptsModel
                ? { requests: session.maxIterations }
                : undefined,
            quiet: false,
          }),
        );
      }
      if (exitCode !== undefined) break;
      rl.prompt();
    }
  } finally {
    rl.off("SIGINT", onInterrupt);
    process.off("SIGINT", onInterrupt);
    rl.close();
    await session.store.close();
  }
  io.err(colors.dim(`Session ${session.sessionId} kept: nous sessions show ${session.sessionId}\n`));
  return exitCode ?? EXIT.ok;
}

/** Decides every pending approval of the chat's session the same way, then resumes the run. */
async function decideAll(
  io: CliIo,
  session: PreparedSession,
  verdict: ApprovalVerdict,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const events = await session.store.read(session.sessionId);
  const pending = pendingApprovalsOf(session.sessionId, events);
  if (pending.length === 0) {
    io.err("Nothing is waiting for approval.\n");
    return { status: "failed", error: new Error("nothing to decide") };
  }
  // The chat's agent resumes the run: another agent than the session's is refused before deciding.
  const mismatch = session.allowAgentChange
    ? undefined
    : agentMismatch(session.sessionId, events, session.agent.identity);
  if (mismatch !== undefined) return { status: "failed", error: mismatch };
  for (const approval of pending) {
    await decideApproval(session.store, approval, verdict);
    io.err(
      `${verdict.type === "approve" ? "Approved" : "Rejected"} ${terminalText(approval.toolName)} (call ${terminalText(approval.toolCallId)})\n`,
    );
  }
  const outcome = await resumeTurn(session.agent, {
    sessionId: session.sessionId,
    store: session.store,
    deps: session.deps,
    signal,
    allowAgentChange: session.allowAgentChange,
  });
  if (outcome.status === "completed") io.out(`${terminalText(String(outcome.result.output))}\n`);
  return outcome;
}
