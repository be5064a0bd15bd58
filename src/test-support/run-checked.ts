import { expect } from "vitest";
import type { Agent, RunArguments } from "../agent/agent.js";
import { projectRunCost } from "../cost/run-cost.js";
import { type AgentStreamEvent, isLogEvent, type StreamedLogEvent } from "../runner/agent-stream-event.js";
import type { Prompt, RunResult } from "../runner/types.js";
import { isSurfaceType, type SessionEvent } from "../session/events.js";
import { projectDeps, projectMessages, projectUsage } from "../session/projections.js";

/** Checks what every run must satisfy: deps and messages are the projections of the log, and no bookkeeping leaks into messages. */
export function checkProjections<D extends object, O>(result: RunResult<O, D>, initialDeps: D): void {
  expect(projectDeps(result.log, initialDeps)).toEqual(result.deps);
  expect(projectMessages(result.log)).toEqual(result.messages);
  // Usage is the run's own: from its run_started on (a continued session holds earlier runs).
  const start = result.log.findIndex(
    (event) => event.type === "run_started" && (event.data as { runId?: string }).runId === result.runId,
  );
  const run = result.log.slice(Math.max(0, start));
  if (!run.some((event) => event.type.startsWith("subagent_"))) expect(projectUsage(run)).toEqual(result.usage);
  // Cost is the run's own plus what its sub-agents reported, as the log says.
  const cost = projectRunCost(run);
  expect(cost.partial).toBe(result.cost.partial);
  expect(cost.usd).toBeCloseTo(result.cost.usd, 10);
  const surfaceCount = result.log.filter((event) => isSurfaceType(event.type)).length;
  expect(result.messages).toHaveLength(surfaceCount);
  const seqs = result.log.map((event) => event.seq);
  expect(seqs).toEqual(seqs.map((_, index) => index + 1));
}

/** `agent.run` plus the projection checks. */
export async function runChecked<D extends object, O>(
  agent: Agent<D, O>,
  prompt: Prompt,
  ...args: RunArguments<D>
): Promise<RunResult<O, D>> {
  const result = await agent.run(prompt, ...args);
  checkProjections(result, (args[0]?.deps ?? {}) as D);
  return result;
}

/**
 * `agent.stream` collected into an array, with the projection checks on the final result, and the
 * stream's contract checked: its log events are the run's part of `result.log`, one for one, in
 * seq order (the run's part: everything after the events the run read from its session).
 */
export async function streamChecked<D extends object, O>(
  agent: Agent<D, O>,
  prompt: Prompt,
  ...args: RunArguments<D>
): Promise<{ events: AgentStreamEvent[]; result: RunResult<O, D> }> {
  const events: AgentStreamEvent[] = [];
  const stream = agent.stream(prompt, ...args);
  for await (const event of stream) events.push(event);
  const result = await stream.result;
  if (events.at(-1)?.type !== "run_completed") throw new Error("the stream did not end with run_completed");
  checkProjections(result, (args[0]?.deps ?? {}) as D);
  const session = args[0] as { sessionId?: string } | undefined;
  if (session?.sessionId === undefined) expectStreamIsLogTail(events, result.log);
  return { events, result };
}

/**
 * Checks that the log events of a stream are the events the run appended to `log` (all of it after
 * the first `before` events, the ones it read from its session), one for one and equal (seq, time,
 * type and data).
 */
export function expectStreamIsLogTail(
  events: readonly AgentStreamEvent[],
  log: readonly SessionEvent[],
  before = 0,
): void {
  const streamed = events.filter((event): event is StreamedLogEvent => isLogEvent(event));
  expect(streamed.length).toBeGreaterThan(0);
  // As stored: a store adds the session id, and JSON drops undefined fields.
  const comparable = ({ seq, at, type, data }: SessionEvent) => JSON.parse(JSON.stringify({ seq, at, type, data }));
  expect(streamed.map(comparable)).toEqual(log.slice(before).map(comparable));
}

/** The event types of a log, for compact assertions. */
export function types(log: readonly { type: string }[]): string[] {
  return log.map((event) => event.type);
}
