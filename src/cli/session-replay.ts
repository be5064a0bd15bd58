import {
  decideApproval,
  listPendingApprovals,
  MemoryStore,
  NousError,
  type SessionEvent,
  type SessionStore,
} from "../index.js";
import { ReplayModel } from "../testing.js";
import { type AnyAgent, loadAgentSource } from "./agent-loader.js";
import { createBuiltinAssistant, recordedClock } from "./builtin-assistant.js";
import { type CliIo, EXIT, existingSession, paint, printJson, UsageError } from "./cli-support.js";
import { summarizeEvent } from "./session-timeline.js";

type Normalized = { type: string; data: unknown };

/**
 * An event without what legitimately differs between a recording and its replay (times, latency and
 * durations, model name).
 */
function normalize(event: SessionEvent): Normalized {
  const data = event.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { type: event.type, data };
  const { latencyMs: _latency, durationMs: _duration, model: _model, ...rest } = data as Record<string, unknown>;
  return { type: event.type, data: rest };
}

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

/** Plays the recorded runs again on `agent` into a fresh in-memory session and returns its log. */
async function replayInto(agent: AnyAgent, recorded: readonly SessionEvent[], deps: Record<string, unknown>) {
  const store = new MemoryStore();
  const sessionId = "replay";
  const decisions = recorded.filter((event) => event.type === "approval_decided");
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
          const recordedDecision = decisions.find(
            (event) => (event.data as { toolCallId?: string }).toolCallId === approval.toolCallId,
          )?.data as { approved: boolean; args?: unknown; reason?: string } | undefined;
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
  return store.read(sessionId);
}

/**
 * `nous sessions replay <id> [agent-file]`: re-runs a recorded session offline — the model answers
 * from the recording (ReplayModel), the tools run for real, recorded approval decisions are
 * applied again — and compares the new log with the recorded one, ignoring times, latencies and
 * model names. Exit 0 when they match, 5 when they differ.
 */
export async function replaySession(
  io: CliIo,
  store: SessionStore,
  id: string,
  file: string | undefined,
  values: { json?: boolean; export?: string },
): Promise<number> {
  await existingSession(store, id);
  const recorded = await store.read(id);
  const model = new ReplayModel(recorded);
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
  const replayed = await replayInto(agent, recorded, { ...liveDeps, ...initialState(recorded) });
  const length = Math.max(recorded.length, replayed.length);
  let difference: { seq: number; recorded: Normalized | null; replayed: Normalized | null } | undefined;
  for (let index = 0; index < length; index++) {
    const expected = recorded[index];
    const actual = replayed[index];
    const left = expected && normalize(expected);
    const right = actual && normalize(actual);
    if (JSON.stringify(left) !== JSON.stringify(right)) {
      difference = { seq: index + 1, recorded: left ?? null, replayed: right ?? null };
      break;
    }
  }
  const matches = difference === undefined;
  if (values.json) {
    printJson(io, {
      sessionId: id,
      matches,
      recordedEvents: recorded.length,
      replayedEvents: replayed.length,
      modelResponsesUnused: model.unusedResponses(),
      ...(difference ? { difference } : {}),
    });
  } else {
    const colors = paint(io);
    if (matches) {
      io.out(
        `${colors.green("✓")} Replay matches the recording: ${recorded.length} events, ${model.requests.length} model responses replayed\n`,
      );
    } else if (difference !== undefined) {
      const line = (event: SessionEvent | undefined) =>
        event === undefined ? "(no event)" : `${event.type} ${summarizeEvent(event)}`;
      io.out(`${colors.red("✗")} Replay differs from the recording at seq ${difference.seq}\n`);
      io.out(`  recorded: ${line(recorded[difference.seq - 1])}\n`);
      io.out(`  replayed: ${line(replayed[difference.seq - 1])}\n`);
      io.out(`  (${recorded.length} recorded events, ${replayed.length} replayed)\n`);
    }
  }
  return matches ? EXIT.ok : EXIT.replayMismatch;
}
