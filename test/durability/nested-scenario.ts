/**
 * The nested-call durability scenario: the model's one tool call is a code-mode program that calls
 * `lookup` (read-only, idempotent), `reserve` (idempotent, side effect keyed by its idempotency
 * key), `charge` (not idempotent) and `reserve` again — nested calls `prog.1` … `prog.4`. Every
 * execution appends a line to a side-effect file (the same format as scenario.ts). A pause point
 * `<nested id>:<window>` hangs the process there (it prints `AT <window>`) for the parent to kill.
 */
import { appendFileSync, writeSync } from "node:fs";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { codeMode } from "../../src/code-mode/code-mode.js";
import { ContextUpdate } from "../../src/context/context-update.js";
import type { ModelRequest } from "../../src/models/model.js";
import { ScriptedModel } from "../../src/models/scripted-model.js";
import type { ScriptedResponse } from "../../src/models/scripted-response.js";
import type { SessionEvent } from "../../src/session/events.js";
import type { RunContext } from "../../src/session/run-context.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { tool } from "../../src/tools/tool.js";
import { hang } from "./scenario.js";

export type NestedDeps = { looked?: string[]; held?: string[] };

export const PROGRAM = `
  const found = await tools.lookup({ item: "book" });
  const held = await tools.reserve({ item: "book" });
  const paid = await tools.charge({ amount: 42 });
  const more = await tools.reserve({ item: "pen" });
  return { found, held, paid, more };`;

/** The nested calls of the program, in program order. */
export const NESTED_CALLS = [
  { id: "prog.1", tool: "lookup" },
  { id: "prog.2", tool: "reserve" },
  { id: "prog.3", tool: "charge" },
  { id: "prog.4", tool: "reserve" },
] as const;

export const NESTED_WINDOWS = ["after-intent", "during", "after-effect", "after-result"] as const;
export type NestedWindow = (typeof NESTED_WINDOWS)[number];

export interface NestedPause {
  readonly id: string;
  readonly window: NestedWindow;
}

/** `prog.3:after-effect` → `{ id: "prog.3", window: "after-effect" }`. */
export function parseNestedPause(text: string | undefined): NestedPause | undefined {
  if (!text) return undefined;
  const [id = "", window = ""] = text.split(":");
  if (!(NESTED_WINDOWS as readonly string[]).includes(window)) throw new Error(`bad pause point ${text}`);
  return { id, window: window as NestedWindow };
}

export function nestedAgent(options: { effectsFile: string; pause?: NestedPause }): Agent<NestedDeps, string> {
  const { effectsFile, pause } = options;
  const windowHook = async (context: RunContext<NestedDeps>, window: NestedWindow) => {
    if (pause !== undefined && pause.id === context.toolCallId && pause.window === window) await hang(window);
  };
  const effect = (kind: "EFFECT" | "READ", toolName: string, context: RunContext<NestedDeps>, key: string) =>
    appendFileSync(effectsFile, `${kind} ${toolName} ${context.toolCallId} ${key}\n`);
  const lookup = tool({
    name: "lookup",
    description: "Read-only lookup",
    input: z.object({ item: z.string() }),
    idempotent: true,
    execute: async ({ item }, context: RunContext<NestedDeps>) => {
      await windowHook(context, "during");
      effect("READ", "lookup", context, item);
      await windowHook(context, "after-effect");
      return { result: { item, price: 7 }, update: ContextUpdate.new<NestedDeps>().append("looked", item) };
    },
  });
  const reserve = tool({
    name: "reserve",
    description: "Idempotent reservation",
    input: z.object({ item: z.string() }),
    idempotent: true,
    execute: async ({ item }, context: RunContext<NestedDeps>) => {
      await windowHook(context, "during");
      effect("EFFECT", "reserve", context, context.idempotencyKey ?? "none");
      await windowHook(context, "after-effect");
      return {
        result: { reserved: item },
        update: ContextUpdate.new<NestedDeps>().append("held", item).logEvent("reserved", { item }),
      };
    },
  });
  const charge = tool({
    name: "charge",
    description: "Non-idempotent charge",
    input: z.object({ amount: z.number() }),
    execute: async ({ amount }, context: RunContext<NestedDeps>) => {
      await windowHook(context, "during");
      effect("EFFECT", "charge", context, String(amount));
      await windowHook(context, "after-effect");
      return { charged: amount };
    },
  });
  // The turn comes from the history, so a model in a resuming process continues where the log stops.
  const step = (request: ModelRequest): ScriptedResponse =>
    request.messages.some((message) => message.role === "assistant")
      ? { text: "paid" }
      : { toolCalls: [{ id: "prog", name: "run_code", args: { code: PROGRAM } }] };
  return new Agent<NestedDeps, string>({
    model: new ScriptedModel(Array.from({ length: 4 }, () => step)),
    instructions: "Nested durability scenario",
    tools: [lookup, reserve, charge, codeMode({ tools: [lookup, reserve, charge], limits: { timeMs: 60_000 } })],
  });
}

/**
 * Wraps a store: after each `append` resolves, writes `ACK <lastSeq>`; in the `after-intent` /
 * `after-result` windows of the pause point, hangs once the commit holding that nested call's
 * `tool_call` / `tool_call_result` is acknowledged.
 */
export function nestedPausingStore(inner: SessionStore, pause?: NestedPause): SessionStore {
  const holds = (events: readonly SessionEvent[], type: string) =>
    events.some((event) => event.type === type && (event.data as { toolCallId?: string }).toolCallId === pause?.id);
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return async (sessionId: string, events: readonly SessionEvent[], options: { expectedLastSeq: number }) => {
          await target.append(sessionId, events, options);
          writeSync(1, `ACK ${events.at(-1)?.seq ?? options.expectedLastSeq}\n`);
          if (pause?.window === "after-intent" && holds(events, "tool_call")) await hang("after-intent");
          if (pause?.window === "after-result" && holds(events, "tool_call_result")) await hang("after-result");
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
