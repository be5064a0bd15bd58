import { expect } from "vitest";
import type { Agent } from "../../../agent/agent.js";
import type { RunResult } from "../../../runner/types.js";
import type { SessionEvent } from "../../../session/events.js";
import { type AnyTool, tool } from "../../../tools/tool.js";
import { rebuildRequest } from "../rebuild-request.js";
import type { RecordedRequest } from "./dialect-fixture.js";

/** The `get_time` function tool the fixtures call, and the arguments of each call it ran. */
export function timeTool(): { getTime: AnyTool; calls: unknown[] } {
  const calls: unknown[] = [];
  const getTime = tool({
    name: "get_time",
    description: "Time in a zone",
    input: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
    execute: (args) => {
      calls.push(args);
      return "14:00";
    },
  });
  return { getTime, calls };
}

/** Runs the agent with `run`, or reads its whole `stream`; the stream's logged event types come back too. */
export async function runAgent(
  agent: Agent,
  mode: "run" | "stream",
  prompt: string,
): Promise<{ result: RunResult; streamedTypes: string[] }> {
  if (mode === "run") return { result: await agent.run(prompt), streamedTypes: [] };
  const stream = agent.stream(prompt);
  const streamedTypes: string[] = [];
  for await (const event of stream) if (event.kind === "event") streamedTypes.push(event.type);
  return { result: await stream.result, streamedTypes };
}

/** Each `model_request` of the log rebuilds into the body the server received for it. */
export function expectBodiesRebuilt(log: readonly SessionEvent[], requests: readonly RecordedRequest[]): void {
  const recorded = log.filter((event) => event.type === "model_request");
  expect(recorded).toHaveLength(requests.length);
  recorded.forEach((event, index) => {
    expect(rebuildRequest(log, event.seq)).toEqual(requests[index]?.body);
  });
}
