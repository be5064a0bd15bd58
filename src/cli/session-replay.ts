import {
  decideApproval,
  listPendingApprovals,
  MemoryStore,
  NousError,
  type SessionEvent,
  type SessionStore,
} from "../index.js";
import { type AnyAgent, loadAgentSource } from "./agent-loader.js";
import { createBuiltinAssistant, recordedClock } from "./builtin-assistant.js";
import { CliExit, type CliIo, EXIT, paint, printJson, terminalText, UsageError } from "./cli-support.js";
import { aliasesOf, compareTrees, pathBelow, readTree, type TreeDifference, type TreeSession } from "./replay-tree.js";
import { ReplayTreeModel } from "./replay-tree-model.js";

/** The id of the replayed root session in the replay's own in-memory store. */
const REPLAY_ROOT = "replay";

/** The state deps a recorded session started with (its initial `context_update`). */
function initialState(events: readonly SessionEvent[]): Record<string, unknown> {
  const first = events.find((event) => event.type === "context_update");
  const data = first?.data as
    | { origin?: string; operations?: { op: string; key: string; value?: unknown }[] }
    | undefined;
  const state: Record<string, unknown> = {};
  if (data?.origin !== "initial") return state;
  for (const operation of data.operations ?? []) if (operation.op === "set") state[operation.key] = operation.value;
  return state;
}

/** Each recorded run: its id and the prompt of its first user message. */
function recordedRuns(events: readonly SessionEvent[]): { runId: string; prompt: unknown }[] {
  const runs: { runId: string; prompt: unknown }[] = [];
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as SessionEvent;
    if (event.type !== "run_started") continue;
    const user = events.slice(index + 1).find((next) => next.type === "user_message" || next.type === "run_started");
    if (user?.type === "user_message") {
      runs.push({
        runId: (event.data as { runId: string }).runId,
        prompt: (user.data as { content: unknown }).content,
      });
    }
  }
  return runs;
}

/** The recorded approval decisions of a tree, by session path and call id (a sub-agent's are in its own session). */
function decisionsOf(tree: readonly TreeSession[]): Map<string, SessionEvent> {
  const decisions = new Map<string, SessionEvent>();
  for (const session of tree) {
    for (const event of session.events) {
      const id = (event.data as { toolCallId?: string }).toolCallId;
      if (event.type === "approval_decided" && id !== undefined) decisions.set(`${session.path}\u0000${id}`, event);
    }
  }
  return decisions;
}

/** Plays the recorded runs again on `agent` into a fresh in-memory store (sub-agents' sessions included). */
async function replayInto(agent: AnyAgent, tree: readonly TreeSession[], deps: Record<string, unknown>) {
  const store = new MemoryStore();
  const sessionId = REPLAY_ROOT;
  const recorded = tree[0]?.events ?? [];
  const decisions = decisionsOf(tree);
  for (const run of recordedRuns(recorded)) {
    let step: () => Promise<unknown> = () =>
      agent.run(run.prompt as string, { sessionId, store, deps: { ...deps }, runId: run.runId });
    for (;;) {
      try {
        await step();
        break;
      } catch (error) {
        if (!(NousError.isInstance(error) && error.code === "approval_pending")) break;
        const pending = await listPendingApprovals(store);
        let decided = 0;
        for (const approval of pending) {
          const path = pathBelow([REPLAY_ROOT], approval.sessionId);
          const recordedDecision = decisions.get(`${path}\u0000${approval.toolCallId}`)?.data as
            | { approved: boolean; args?: unknown; reason?: string }
            | undefined;
          if (recordedDecision === undefined) continue;
          const verdict = !recordedDecision.approved
            ? { type: "reject" as const, reason: recordedDecision.reason }
            : recordedDecision.args !== undefined
              ? { type: "edit" as const, args: recordedDecision.args }
              : { type: "approve" as const };
          await decideApproval(store, approval, verdict);
          decided++;
        }
        if (decided === 0) break;
        step = () => agent.resume(sessionId, { store, deps: { ...deps } });
      }
    }
  }
  return store;
}

/** A compared event, in full, as indented pretty JSON safe for a terminal. */
function fullEvent(event: TreeDifference["recorded"]): string {
  return event === null ? "(no event)" : terminalText(JSON.stringify(event, null, 2)).replaceAll("\n", "\n  ");
}

/**
 * `nous sessions replay <id> [agent-file]`: re-runs a recorded session offline — the model answers
 * from the recording (the session's and its sub-agents', each conversation from its own), the
 * tools run for real, recorded approval decisions are applied again — and compares the new logs
 * with the recorded ones, the sub-agents' sessions by their path below the root. Times, latencies,
 * model names, stream flags and run ids are not compared. Exit 0 when they match, 5 when they differ, showing
 * both sides of each session's first difference in full.
 */
export async function replaySession(
  io: CliIo,
  store: SessionStore,
  id: string,
  file: string | undefined,
  values: { json?: boolean; export?: string },
): Promise<number> {
  if (!(await store.exists(id))) throw new CliExit(EXIT.notFound, `Session "${id}" not found`);
  const aliases = await aliasesOf(store, id);
  const recordedTree = await readTree(store, id, aliases);
  const recorded = recordedTree[0]?.events ?? [];
  const model = new ReplayTreeModel(recordedTree);
  let agent: AnyAgent;
  let liveDeps: Record<string, unknown> = {};
  if (file === undefined) {
    agent = createBuiltinAssistant({ model, clock: recordedClock(recorded), maxIterations: 1000 });
  } else {
    const source = await loadAgentSource(file, values.export);
    if (!source.acceptsModel) {
      throw new UsageError(
        `Replay needs "${file}" to export a factory ({ model }) => Agent, so the recorded model can be swapped in`,
      );
    }
    agent = await source.build({ model });
    liveDeps = await source.liveDeps();
  }
  const replayStore = await replayInto(agent, recordedTree, { ...liveDeps, ...initialState(recorded) });
  const replayedTree = await readTree(replayStore, REPLAY_ROOT);
  const differences = compareTrees({ tree: recordedTree, aliases }, { tree: replayedTree, aliases: [REPLAY_ROOT] });
  const recordedEvents = recordedTree.reduce((sum, session) => sum + session.events.length, 0);
  const replayedEvents = replayedTree.reduce((sum, session) => sum + session.events.length, 0);
  const matches = differences.length === 0;
  if (values.json) {
    printJson(io, {
      sessionId: id,
      matches,
      sessions: recordedTree.map((session) => ({ path: session.path, sessionId: session.sessionId })),
      recordedEvents,
      replayedEvents,
      modelResponsesUnused: model.unusedResponses(),
      ...(matches ? {} : { difference: differences[0], differences }),
    });
    return matches ? EXIT.ok : EXIT.replayMismatch;
  }
  const colors = paint(io);
  const sessions = recordedTree.length === 1 ? "" : ` in ${recordedTree.length} sessions (sub-agents by path)`;
  if (matches) {
    io.out(
      `${colors.green("✓")} Replay matches the recording: ${recordedEvents} events${sessions}, ${model.answered} model responses replayed\n`,
    );
    return EXIT.ok;
  }
  for (const difference of differences) {
    const where = difference.path === "." ? "" : ` in sub-agent session ${terminalText(difference.path)}`;
    io.out(`${colors.red("✗")} Replay differs from the recording at seq ${difference.seq}${where}\n`);
    io.out(`  recorded: ${fullEvent(difference.recorded)}\n`);
    io.out(`  replayed: ${fullEvent(difference.replayed)}\n`);
    io.out(`  (${difference.recordedEvents} recorded events, ${difference.replayedEvents} replayed)\n`);
  }
  io.out(
    colors.dim(
      "Compared without times, latencies, model names, stream flags and run ids; sub-agent sessions by path.\n",
    ),
  );
  return EXIT.replayMismatch;
}
