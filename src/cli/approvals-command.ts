import {
  type ApprovalVerdict,
  decideApproval,
  listPendingApprovals,
  NousError,
  type PendingApproval,
} from "../index.js";
import {
  CliExit,
  type CliIo,
  checkSessionIdArgument,
  EXIT,
  jsonOption,
  paint,
  parseCommand,
  printJson,
  shortened,
  UsageError,
} from "./cli-support.js";
import { openStore, storeLocation } from "./open-store.js";
import { preview } from "./render-stream.js";
import { exitCodeOfOutcome, outcomeJson, reportOutcome, resumeTurn } from "./run-turn.js";
import { loadSessionAgent } from "./session-agent.js";

export const APPROVALS_HELP = `Usage: nous approvals <subcommand> [options]

Subcommands:
  list                                  tool calls waiting for a decision, in every session
  approve <session> <call> [--args json] approve (with edited arguments when --args is given)
  reject <session> <call> [--reason text]
                                        reject; the model is told the reason

After a decision, once the session has no other pending approval, the run resumes with
the agent that ran the session and its answer is printed: pass --agent with its file
unless the built-in assistant ran it. A session run by another agent than the one given
(or the built-in assistant, without --agent) is refused with exit code 2 before the
decision is recorded. A sub-agent's request (listed with "via" its root session) is
decided in the sub-agent's session; the root session resumes with the root's agent, and
with it the sub-agent.

Options:
  --store path|url      SQLite file or postgres:// URL (default: NOUS_STORE, else .nous/sessions.db)
  --agent file          the file of the agent that ran the session (default: the built-in assistant)
  --allow-agent-change  resume with another agent than the one that ran the session
                        (recorded in the session as agent_changed)
  --export name         the agent file's export (default: default)
  --model provider:model  the model for the resumed run (default: NOUS_MODEL, else the offline model)
  --no-resume           record the decision only
  --json                machine-readable output
  -h, --help            this help

Exit codes: 0 ok (decided, and the resumed run completed), 1 the resumed run failed,
2 usage error, 3 still waiting for approval, 4 no such pending approval.
`;

const OPTIONS = {
  store: { type: "string" },
  json: { type: "boolean" },
  args: { type: "string" },
  reason: { type: "string" },
  agent: { type: "string" },
  export: { type: "string" },
  model: { type: "string" },
  "no-resume": { type: "boolean" },
  "allow-agent-change": { type: "boolean" },
} as const;

/** `nous approvals …`. */
export async function approvalsCommand(io: CliIo, argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  const [sub, sessionId, callId, ...extra] = positionals;
  if (values.help || sub === undefined) {
    io.out(APPROVALS_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  if (sub !== "list" && sub !== "approve" && sub !== "reject") {
    throw new UsageError(`Unknown subcommand "approvals ${sub}"`);
  }
  if (sub === "list" && sessionId !== undefined) throw new UsageError('"approvals list" takes no arguments');
  if (sub !== "list" && (sessionId === undefined || callId === undefined || extra.length > 0)) {
    throw new UsageError(`"approvals ${sub}" needs a session id and a tool call id`);
  }
  if (sub !== "approve" && values.args !== undefined) throw new UsageError("--args is only for approve");
  if (sub !== "reject" && values.reason !== undefined) throw new UsageError("--reason is only for reject");
  if (sessionId !== undefined) checkSessionIdArgument(`approvals ${sub}`, sessionId);
  const editedArgs = jsonOption("args", values.args);
  const store = await openStore(storeLocation(values.store));
  try {
    if (sub === "list") return await list(io, await listPendingApprovals(store), values.json === true);
    const session = sessionId as string;
    const events = await store.read(session);
    if (events.length === 0) throw new CliExit(EXIT.notFound, `Session "${session}" not found`);
    const pending = await listPendingApprovals(store, { sessionId: session });
    const approval = pending.find((item) => item.toolCallId === callId);
    if (approval === undefined) {
      throw new CliExit(
        EXIT.notFound,
        `No pending approval for call "${shortened(callId ?? "")}" in session "${session}"`,
      );
    }
    const verdict: ApprovalVerdict =
      sub === "reject"
        ? { type: "reject", reason: values.reason }
        : editedArgs !== undefined
          ? { type: "edit", args: editedArgs }
          : { type: "approve" };
    // A sub-agent's request: the root session resumes, and resumes the child. The agent that will
    // resume it (or check edited arguments) must be the root's: checked before the decision is
    // recorded, so a refusal leaves the session as it was.
    const root = approval.path?.[0]?.sessionId ?? session;
    const rootEvents = root === session ? events : await store.read(root);
    const loaded =
      verdict.type === "edit" || !values["no-resume"] ? await loadSessionAgent(root, rootEvents, values) : undefined;
    try {
      // Edited arguments must pass the tool's schema now, not fail later when the run resumes.
      await decideApproval(store, approval, verdict, verdict.type === "edit" ? { agent: loaded?.agent } : {});
    } catch (error) {
      if (NousError.isInstance(error) && error.code === "approval_mismatch")
        throw new CliExit(EXIT.notFound, error.message);
      if (NousError.isInstance(error) && error.code === "invalid_approval_arguments")
        throw new CliExit(EXIT.usage, `${error.message} (nothing was recorded)`);
      throw error;
    }
    const decided =
      sub === "reject" ? "Rejected" : editedArgs !== undefined ? "Approved with edited arguments" : "Approved";
    io.err(`${decided}: ${approval.toolName} (call ${approval.toolCallId}) in session ${session}\n`);
    const remaining = pending.length - 1;
    if (values["no-resume"] || remaining > 0) {
      if (remaining > 0)
        io.err(`${remaining} more approval(s) pending in this session; the run resumes once all are decided\n`);
      if (values.json)
        printJson(io, {
          sessionId: session,
          toolCallId: callId,
          verdict: verdict.type,
          resumed: false,
          pending: remaining,
        });
      return remaining > 0 ? EXIT.awaitingApproval : EXIT.ok;
    }
    const { source, agent } = loaded ?? (await loadSessionAgent(root, rootEvents, values));
    io.err(`Resuming ${root === session ? "" : `session ${root} `}with ${source.label}…\n`);
    const startedAt = Date.now();
    const outcome = await resumeTurn(agent, {
      sessionId: root,
      store,
      deps: await source.liveDeps(),
      allowAgentChange: values["allow-agent-change"],
    });
    if (values.json) {
      printJson(io, { ...outcomeJson(outcome, root, []), verdict: verdict.type, resumed: true });
    } else if (outcome.status === "completed") {
      io.out(`${String(outcome.result.output)}\n`);
    }
    reportOutcome(io, outcome, root, startedAt);
    return exitCodeOfOutcome(outcome);
  } finally {
    await store.close();
  }
}

async function list(io: CliIo, approvals: PendingApproval[], json: boolean): Promise<number> {
  if (json) {
    printJson(io, approvals);
    return EXIT.ok;
  }
  if (approvals.length === 0) {
    io.err("No pending approvals.\n");
    return EXIT.ok;
  }
  const colors = paint(io);
  for (const approval of approvals) {
    // A sub-agent's request shows the way to it from the root session.
    const via = approval.path
      ? `  ${colors.dim(
          `via ${approval.path
            .slice(0, -1)
            .map((step) => `${step.sessionId} › ${step.toolCallId}`)
            .join(" › ")}`,
        )}`
      : "";
    io.out(
      `${colors.bold(approval.sessionId)}  ${approval.toolCallId}  ${approval.toolName}(${preview(approval.args, 80)})  ${colors.dim(approval.requestedAt)}${via}\n`,
    );
  }
  io.err(colors.dim("Decide with: nous approvals approve|reject <session> <call>\n"));
  return EXIT.ok;
}
