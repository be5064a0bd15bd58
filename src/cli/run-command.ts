import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { NousError, OFFLINE_NOTICE, type SessionStore } from "../index.js";
import { type AgentSource, type AnyAgent, chosenModel, loadAgentSource } from "./agent-loader.js";
import {
  type CliIo,
  checkSessionIdArgument,
  EXIT,
  integerOption,
  paint,
  parseCommand,
  printJson,
  UsageError,
} from "./cli-support.js";
import { describeStore, openStore, storeLocation } from "./open-store.js";
import type { ToolCallReport } from "./render-stream.js";
import { exitCodeOfOutcome, outcomeJson, reportOutcome, runTurn } from "./run-turn.js";

export const RUN_HELP = `Usage: nous run [agent-file] "prompt" [options]

Runs an agent once on a session and streams its answer to stdout. Tool calls, the
session id and usage go to stderr, so \`nous run "…" > answer.txt\` keeps only the answer.

  agent-file            a .js/.mjs/.ts module whose default export is an Agent or a
                        factory ({ model, maxIterations }) => Agent (.ts needs tsx);
                        omitted: the built-in assistant (time, arithmetic, notes, file listing)
  prompt                the prompt; "-" reads it from stdin

Options:
  --model provider:model   the model (default: NOUS_MODEL, else the rule-based offline model)
  --session id             continue this session (default: a new id, printed)
  --store path|url         SQLite file or postgres:// URL (?schema=name)
                           (default: NOUS_STORE, else .nous/sessions.db)
  --deps file.json         initial state deps of a new session (a JSON object)
  --max-iterations n       model requests allowed in this run
  --export name            the agent file's export to use (default: default)
  --allow-agent-change     continue a session another agent ran (recorded as agent_changed);
                           without it that is refused (exit 2): pass that agent's file
  --json                   print one JSON object (sessionId, status, output, usage, cost,
                           deps, toolCalls, error, pending) instead of the stream
  -h, --help               this help

Exit codes: 0 completed, 1 run failed, 2 usage error, 3 awaiting approval, 7 a package to install
(the line says which), 130 interrupted.
`;

/** Options shared by run and chat. */
export const AGENT_OPTIONS = {
  model: { type: "string" },
  session: { type: "string" },
  store: { type: "string" },
  deps: { type: "string" },
  "max-iterations": { type: "string" },
  export: { type: "string" },
  json: { type: "boolean" },
  "allow-agent-change": { type: "boolean" },
} as const;

/** Reads `--deps file.json`: a JSON object, or a usage error. */
export async function readDepsFile(file: string | undefined): Promise<Record<string, unknown>> {
  if (file === undefined) return {};
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`--deps: cannot read "${file}"`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--deps: "${file}" is not valid JSON: ${error instanceof Error ? error.message : error}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--deps: "${file}" must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** An agent, its store and session, ready for turns: what run and chat share. */
export interface PreparedSession {
  readonly agent: AnyAgent;
  readonly source: AgentSource;
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly deps: Record<string, unknown>;
  readonly maxIterations: number | undefined;
  /** `--allow-agent-change`: go on with a session another agent ran. */
  readonly allowAgentChange: boolean;
}

/** Loads the agent, opens the store, picks the session and prints the one-line notices (stderr). */
export async function prepareSession(
  io: CliIo,
  file: string | undefined,
  values: {
    model?: string;
    session?: string;
    store?: string;
    deps?: string;
    "max-iterations"?: string;
    export?: string;
    "allow-agent-change"?: boolean;
  },
): Promise<PreparedSession> {
  const colors = paint(io);
  const maxIterations = integerOption("max-iterations", values["max-iterations"], 1);
  const source = await loadAgentSource(file, values.export);
  const fileDeps = await readDepsFile(values.deps);
  const model = chosenModel(values.model);
  if (!source.acceptsModel && values.model !== undefined) {
    io.err(colors.yellow(`--model is ignored: ${source.label} exports an Agent instance, not a factory\n`));
  }
  const agent = await source.build({ model, maxIterations });
  const modelLabel = `${agent.model.provider}:${agent.model.modelId}`;
  if (agent.model.provider === "test") {
    io.err(`Model: ${modelLabel} (the built-in offline TestModel; pass --model provider:model or set NOUS_MODEL)\n`);
  } else if (agent.model.provider === "offline") {
    io.err(`Model: ${modelLabel} · ${OFFLINE_NOTICE}\n`);
  } else {
    io.err(`Model: ${modelLabel}\n`);
  }
  const sessionId = values.session === undefined ? randomUUID() : checkSessionIdArgument("--session", values.session);
  const location = storeLocation(values.store);
  const store = await openStore(location);
  const summary = await store.get(sessionId);
  const state = summary === undefined ? "new" : `continued, ${summary.eventCount} events`;
  io.err(`Session: ${colors.bold(sessionId)} (${state}) · store ${describeStore(location)}\n`);
  const deps = { ...(await source.liveDeps()), ...fileDeps };
  return {
    agent,
    source,
    store,
    sessionId,
    deps,
    maxIterations,
    allowAgentChange: values["allow-agent-change"] === true,
  };
}

/** Reads the whole of stdin (for a prompt given as "-"). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** `nous run`: one prompt, streamed; the exit code says how the run ended. */
export async function runCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, AGENT_OPTIONS);
  if (values.help) {
    io.out(RUN_HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0 || positionals.length > 2) {
    throw new UsageError(
      positionals.length === 0 ? "nous run needs a prompt" : "nous run takes at most an agent file and a prompt",
    );
  }
  const file = positionals.length === 2 ? positionals[0] : undefined;
  let prompt = positionals.at(-1) as string;
  if (prompt === "-") prompt = await readStdin();
  if (prompt.trim() === "") throw new UsageError("The prompt is empty");
  const prepared = await prepareSession(io, file, values);
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(EXIT.interrupted);
    io.err("\nCancelling… (Ctrl-C again to quit at once)\n");
    controller.abort(new Error("interrupted by the user"));
  };
  process.on("SIGINT", onInterrupt);
  const startedAt = Date.now();
  const toolCalls: ToolCallReport[] = [];
  try {
    const outcome = await runTurn(
      io,
      prepared.agent,
      prompt,
      {
        sessionId: prepared.sessionId,
        store: prepared.store,
        deps: prepared.deps,
        signal: controller.signal,
        usageLimits:
          prepared.maxIterations !== undefined && !prepared.source.acceptsModel
            ? { requests: prepared.maxIterations }
            : undefined,
        quiet: values.json === true,
        allowAgentChange: prepared.allowAgentChange,
      },
      toolCalls,
    );
    if (values.json) printJson(io, outcomeJson(outcome, prepared.sessionId, toolCalls));
    reportOutcome(io, outcome, prepared.sessionId, startedAt, prepared.source.agentFile);
    if (outcome.status === "failed" && NousError.isInstance(outcome.error) && outcome.error.code === "session_state") {
      io.err(`An interrupted run is continued with: nous sessions resume ${prepared.sessionId} [--agent FILE]\n`);
    }
    return exitCodeOfOutcome(outcome);
  } finally {
    process.off("SIGINT", onInterrupt);
    await prepared.store.close();
  }
}
