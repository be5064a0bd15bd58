import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import type { Model, ModelUsage } from "../../models/model.js";
import { ScriptedModel } from "../../models/scripted-model.js";
import type { SessionEvent } from "../../session/events.js";
import { tool } from "../../tools/tool.js";
import { agentAsTool } from "../sub-agent.js";

/** Shared by the sub-agent tests. */
export const u = (inputTokens: number, outputTokens: number): ModelUsage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});
export const usage = (fields: { requests: number; input: number; output: number; toolCalls: number }) => ({
  requests: fields.requests,
  inputTokens: fields.input,
  outputTokens: fields.output,
  totalTokens: fields.input + fields.output,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  toolCalls: fields.toolCalls,
});
export const lookup = tool({
  name: "lookup",
  description: "Look something up",
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
});
export const dataOf = (log: readonly SessionEvent[], type: string) =>
  log.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);
export const lastToolResult = (model: ScriptedModel, turn: number) =>
  model.requests[turn]?.messages.at(-1) as { role: string; toolCallId: string; result: unknown };

/**
 * A lead that calls two sub-agents in one turn — a researcher that completes (one lookup, then an
 * answer) and a checker that fails (it reaches its one-iteration limit after a lookup) — then
 * answers. Every response has pinned usage (see `TEAM_USAGE`). Given `model` (a replay), every
 * agent of the team answers from it.
 */
export function teamAgent(options: { model?: Model | string } = {}): Agent {
  // The scripted models have no price of their own: priced at the list rates of the models they stand for.
  const pricing = { "gpt-4o": { input: 2.5, output: 10 }, "gpt-4o-mini": { input: 0.15, output: 0.6 } };
  const researcher = new Agent({
    name: "researcher",
    model:
      options.model ??
      new ScriptedModel(
        [
          { toolCalls: [{ id: "l1", name: "lookup", args: { q: "milk" } }], usage: u(3, 2) },
          { text: "milk is white", usage: u(4, 1) },
        ],
        { modelId: "gpt-4o-mini" },
      ),
    tools: [lookup],
    pricing,
  });
  const checker = new Agent({
    name: "checker",
    maxIterations: 1,
    model:
      options.model ??
      new ScriptedModel([{ toolCalls: [{ id: "k1", name: "lookup", args: { q: "cows" } }], usage: u(6, 1) }], {
        modelId: "gpt-4o-mini",
      }),
    tools: [lookup],
    pricing,
  });
  return new Agent({
    name: "lead",
    pricing,
    model:
      options.model ??
      new ScriptedModel(
        [
          {
            toolCalls: [
              { id: "r1", name: "research", args: { prompt: "what colour is milk?" } },
              { id: "c1", name: "check", args: { prompt: "check the cows" } },
            ],
            usage: u(10, 5),
          },
          { text: "done", usage: u(20, 5) },
        ],
        { modelId: "gpt-4o" },
      ),
    tools: [
      lookup,
      agentAsTool(researcher, { name: "research", description: "Research a question" }),
      agentAsTool(checker, { name: "check", description: "Check a fact" }),
    ],
  });
}

/** What each session of a `teamAgent` run uses, and the root's total (own + both children, once). */
export const TEAM_USAGE = {
  lead: usage({ requests: 2, input: 30, output: 10, toolCalls: 2 }),
  researcher: usage({ requests: 2, input: 7, output: 3, toolCalls: 1 }),
  checker: usage({ requests: 1, input: 6, output: 1, toolCalls: 1 }),
  total: usage({ requests: 5, input: 43, output: 14, toolCalls: 4 }),
};
