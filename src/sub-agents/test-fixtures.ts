import { z } from "zod";
import type { ModelUsage } from "../models/model.js";
import type { ScriptedModel } from "../models/scripted-model.js";
import type { SessionEvent } from "../session/events.js";
import { tool } from "../tools/tool.js";

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
