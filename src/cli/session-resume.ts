import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type InDoubtCall,
  type InDoubtDecision,
  inDoubtCalls,
  NousError,
  type SessionConflictError,
  type SessionStore,
  ToolInDoubtError,
} from "../index.js";
import { CliExit, type CliIo, EXIT, paint, printJson, UsageError } from "./cli-support.js";
import { preview } from "./render-stream.js";
import { exitCodeOfOutcome, outcomeJson, reportOutcome, resumeTurn, type TurnOutcome } from "./run-turn.js";
import { loadSessionAgent, type SessionAgentOptions } from "./session-agent.js";

/** The options of `nous sessions resume`. */
export interface ResumeValues extends SessionAgentOptions {
  readonly json?: boolean;
  readonly "rerun-in-doubt"?: boolean;
  readonly "abandon-in-doubt"?: boolean;
  readonly rerun?: string[];
  readonly abandon?: string[];
}

type Choice = "rerun" | "abandon";

/** The longest wait for the lease of a run whose process is gone before `resume` gives up and says when. */
const MAX_LEASE_WAIT_MS = 60_000;

const ABANDONED =
  "Not run again: this call was interrupted before its result was recorded, so it may or may not have had its effect; the user chose not to repeat it.";

/**
 * `nous sessions resume <id>`: continues the session's interrupted run (a crash, a fork, a store
 * failure, decided approvals) with the agent that ran it. Every call in doubt gets a decision first
 * (flags, or a question on a terminal); without one the command refuses and records nothing. A
 * lease held by a process of this machine that is gone is waited out (up to a minute).
 */
export async function resumeSession(io: CliIo, store: SessionStore, sessionId: string, values: ResumeValues) {
  if (values["rerun-in-doubt"] && values["abandon-in-doubt"]) {
    throw new UsageError("--rerun-in-doubt and --abandon-in-doubt exclude each other");
  }
  const summary = await store.get(sessionId);
  if (summary === undefined) throw new CliExit(EXIT.notFound, `Session "${sessionId}" not found`);
  const events = await store.read(sessionId);
  const { source, agent } = await loadSessionAgent(sessionId, events, values);
  const decisions = await decide(io, sessionId, inDoubtCalls(events, agent), values);
  const resolveInDoubt = (call: { toolCallId: string; toolName: string; args: unknown }): InDoubtDecision => {
    const choice = decisions.get(call.toolCallId) ?? fallback(values);
    if (choice === undefined) throw new ToolInDoubtError(call);
    return choice === "rerun" ? { type: "rerun" } : { type: "result", result: ABANDONED, isError: true };
  };
  io.err(`Resuming session ${sessionId} (${summary.status}) with ${source.label}…\n`);
  const startedAt = Date.now();
  let outcome: TurnOutcome;
  for (let attempt = 0; ; attempt++) {
    outcome = await resumeTurn(agent, {
      sessionId,
      store,
      deps: await source.liveDeps(),
      resolveInDoubt,
      allowAgentChange: values["allow-agent-change"],
    });
    const held = heldLease(outcome);
    if (held === undefined) break;
    const wait = attempt < 3 ? deadHolderWait(held) : undefined;
    if (wait === undefined) {
      throw new CliExit(
        EXIT.failed,
        `Session "${sessionId}" is still held by a live run (lease owner "${held.heldBy}", until ${held.heldUntil} unless renewed): resume it once that run has ended or its lease expired. Nothing was recorded.`,
      );
    }
    io.err(
      `The process that ran it (pid ${held.heldBy?.split("/").at(-2) ?? "?"} on this machine) is gone; waiting ${Math.ceil(wait / 1000)} s for its lease to expire…\n`,
    );
    await sleep(wait);
  }
  if (values.json) {
    printJson(io, { ...outcomeJson(outcome, sessionId, []), resumed: true, inDoubt: Object.fromEntries(decisions) });
  } else if (outcome.status === "completed") {
    io.out(`${String(outcome.result.output)}\n`);
  }
  reportOutcome(io, outcome, sessionId, startedAt);
  return exitCodeOfOutcome(outcome);
}

function fallback(values: ResumeValues): Choice | undefined {
  if (values["rerun-in-doubt"]) return "rerun";
  if (values["abandon-in-doubt"]) return "abandon";
  return undefined;
}

/** A decision for every call in doubt: from the flags, else asked on a terminal, else refused. */
async function decide(io: CliIo, sessionId: string, calls: readonly InDoubtCall[], values: ResumeValues) {
  const decisions = new Map<string, Choice>();
  const ids = new Set(calls.map((call) => call.toolCallId));
  for (const [choice, given] of [
    ["rerun", values.rerun ?? []],
    ["abandon", values.abandon ?? []],
  ] as const) {
    for (const id of given) {
      if (!ids.has(id)) {
        const known = calls.length === 0 ? "none" : [...ids].join(", ");
        throw new UsageError(`--${choice} ${id}: not a call in doubt in session "${sessionId}" (in doubt: ${known})`);
      }
      if (decisions.has(id)) throw new UsageError(`Call ${id} is given two decisions`);
      decisions.set(id, choice);
    }
  }
  const open = calls.filter((call) => !decisions.has(call.toolCallId));
  const all = fallback(values);
  if (all !== undefined) for (const call of open) decisions.set(call.toolCallId, all);
  else if (open.length > 0 && io.interactive && process.stdin.isTTY) await ask(io, open, decisions);
  else if (open.length > 0) {
    const lines = open.map((call) => `  ${describe(call)}\n`).join("");
    throw new CliExit(
      EXIT.usage,
      `Session "${sessionId}" has ${open.length} tool call(s) in doubt: started before the interruption, with no recorded result, so each may or may not have had its effect:\n${lines}Decide each with --rerun <call> (run it again) or --abandon <call> (record it as failed, do not run it), or all at once with --rerun-in-doubt or --abandon-in-doubt. Nothing was recorded.`,
    );
  }
  return decisions;
}

function describe(call: InDoubtCall): string {
  const nested = call.parentToolCallId === undefined ? "" : ` (inside call ${call.parentToolCallId})`;
  return `${call.toolName}(${preview(call.args, 100)})  call ${call.toolCallId}${nested}`;
}

async function ask(io: CliIo, calls: readonly InDoubtCall[], decisions: Map<string, Choice>): Promise<void> {
  const colors = paint(io);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Lines are buffered by the iterator: answers typed (or piped) ahead are not lost.
  const lines = rl[Symbol.asyncIterator]();
  try {
    io.err(
      colors.yellow("These calls started before the interruption and have no result: each may have had its effect.\n"),
    );
    for (const call of calls) {
      let answer = "";
      while (answer !== "r" && answer !== "s") {
        io.err(`${describe(call)}\n  run it again (r) or skip it as failed (s)? `);
        const next = await lines.next();
        if (next.done) throw new CliExit(EXIT.usage, "No decision was given (the input ended). Nothing was recorded.");
        answer = String(next.value).trim().toLowerCase();
      }
      decisions.set(call.toolCallId, answer === "r" ? "rerun" : "abandon");
    }
  } finally {
    rl.close();
  }
}

function heldLease(outcome: TurnOutcome): SessionConflictError | undefined {
  if (outcome.status !== "failed") return undefined;
  const error = outcome.error;
  if (!NousError.isInstance(error) || error.code !== "session_conflict") return undefined;
  const conflict = error as SessionConflictError;
  return conflict.reason === "lease_held" ? conflict : undefined;
}

/**
 * How long to wait for a lease whose holder is a process of this machine that no longer exists
 * (killed: it never released it), or undefined when the holder may be alive, is elsewhere, or its
 * lease lasts longer than `MAX_LEASE_WAIT_MS`.
 */
function deadHolderWait(held: SessionConflictError): number | undefined {
  const owner = /^(.*)\/(\d+)\/[^/]+$/.exec(held.heldBy ?? "");
  if (owner === null || owner[1] !== hostname()) return undefined;
  const pid = Number(owner[2]);
  try {
    process.kill(pid, 0);
    return undefined; // alive
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") return undefined;
  }
  const wait = Date.parse(held.heldUntil ?? "") - Date.now() + 250;
  if (!Number.isFinite(wait) || wait > MAX_LEASE_WAIT_MS) return undefined;
  return Math.max(wait, 50);
}
