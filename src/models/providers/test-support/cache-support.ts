import { z } from "zod";
import type { Agent } from "../../../agent/agent.js";
import type { EventOf, SessionEvent } from "../../../session/events.js";
import { MemoryStore } from "../../../store/memory-store.js";
import { tool } from "../../../tools/tool.js";
import { rebuildRequest } from "../rebuild-request.js";
import type { FakeServer } from "./fake-server.js";

/** The prompt caching tests' tools. */
export const getWeather = tool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temp: 21 }),
});
export const getTime = tool({
  name: "get_time",
  description: "Time in a zone",
  input: z.object({ zone: z.string() }),
  execute: () => "12:00",
});

/** Sessions live in memory: nothing is written to disk. */
const store = new MemoryStore();

/** One run of a session kept in memory, by `agent.run` or, when `stream`, by `agent.stream`. */
export async function runAgent(agent: Agent, prompt: string, stream: boolean, sessionId?: string) {
  const options = sessionId === undefined ? { store } : { sessionId, store };
  if (!stream) return agent.run(prompt, options);
  const events = agent.stream(prompt, options);
  for await (const _ of events);
  return events.result;
}

/** The JSON bodies the server received, in order. */
export function receivedBodies(server: FakeServer): Record<string, unknown>[] {
  return server.requests.map((request) => request.body as Record<string, unknown>);
}

/** The body of every `model_request` of a log, rebuilt from the log alone. */
export function rebuiltBodies(log: readonly SessionEvent[]): Record<string, unknown>[] {
  return log
    .filter((event): event is EventOf<"model_request"> => event.type === "model_request")
    .map((event) => rebuildRequest(log, event.seq));
}
