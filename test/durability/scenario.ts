/**
 * The durability scenario shared by the crash child process and the tests: an agent driven by a
 * ScriptedModel through many turns of tool calls, with three tools of different kinds:
 * `reserve` (idempotent, side effect keyed by its idempotency key), `lookup` (read-only, declared
 * idempotent since re-reading is harmless) and `charge` (not idempotent, side effect). In the
 * extended scenario every third turn also asks for a `transfer` (not idempotent, needs approval) that a
 * person approves with edited arguments from another process, and every third turn runs a code-mode
 * program whose nested calls reserve and charge. Every execution appends a line to a
 * side-effect file.
 */
import { appendFileSync, existsSync, readFileSync, writeSync } from "node:fs";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { codeMode } from "../../src/code-mode/code-mode.js";
import { ContextUpdate } from "../../src/context/context-update.js";
import { SessionConflictError } from "../../src/errors/store-errors.js";
import type { ModelRequest } from "../../src/models/model.js";
import { ScriptedModel } from "../../src/models/scripted-model.js";
import type { ScriptedResponse } from "../../src/models/scripted-response.js";
import type { InDoubtDecision, InDoubtResolver } from "../../src/runner/run-state.js";
import type { SessionEvent } from "../../src/session/events.js";
import type { RunContext } from "../../src/session/run-context.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { tool } from "../../src/tools/tool.js";

export type Deps = { counter: number };

/** The windows of one tool call a child can pause in (then it prints `AT <window>` and waits to be killed). */
export const WINDOWS = ["before-intent", "after-intent", "during", "after-effect", "after-result"] as const;
export type Window = (typeof WINDOWS)[number];

/** Where to pause: the `nth` (0-based) call of `tool`, in `window`. Parsed from `tool:window:nth`. */
export interface PausePoint {
  readonly tool: string;
  readonly window: Window;
  readonly nth: number;
}

export function parsePause(text: string | undefined): PausePoint | undefined {
  if (!text) return undefined;
  const [toolName = "", window = "", nth = "0"] = text.split(":");
  if (!(WINDOWS as readonly string[]).includes(window)) throw new Error(`bad pause point ${text}`);
  return { tool: toolName, window: window as Window, nth: Number(nth) };
}

/** One line of the side-effect file. */
export interface Effect {
  readonly kind: "EFFECT" | "READ";
  readonly tool: string;
  readonly toolCallId: string;
  readonly key: string;
}

export function readEffects(file: string): Effect[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [kind, toolName, toolCallId, key] = line.split(" ");
      return { kind: kind as Effect["kind"], tool: toolName ?? "", toolCallId: toolCallId ?? "", key: key ?? "" };
    });
}

/** Pauses forever (the parent kills the process), or with NOUS_PAUSE_UNTIL_GO until a `GO` line on stdin. */
export function hang(window: string): Promise<void> {
  writeSync(1, `AT ${window}\n`);
  if (process.env.NOUS_PAUSE_UNTIL_GO) return waitForGo();
  return new Promise(() => {
    setInterval(() => {}, 1 << 30);
  });
}

/** Resolves once stdin has carried a `GO` line (each call waits for a new one). */
export function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    let buffer = "";
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      if (!buffer.includes("GO")) return;
      process.stdin.off("data", onData);
      resolve();
    };
    process.stdin.on("data", onData);
    process.stdin.resume();
  });
}

/**
 * Runs `attempt`; while it is refused because another run's lease is live (a killed process's, until
 * it expires), waits until that lease's expiry and tries again.
 */
export async function whenLeaseFree<T>(attempt: () => Promise<T>, tries = 100): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      const conflict = error instanceof SessionConflictError ? error : (error as { cause?: unknown }).cause;
      if (!(conflict instanceof SessionConflictError) || conflict.reason !== "lease_held" || round >= tries)
        throw error;
      const wait = Date.parse(conflict.heldUntil ?? "") - Date.now();
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 0), 60_000) + 10));
    }
  }
}

export interface ScenarioOptions {
  readonly effectsFile: string;
  readonly turns: number;
  readonly pause?: PausePoint;
  /** Adds a `transfer` needing approval to turns 1, 4, 7, … and a code-mode program to turns 2, 5, 8, … */
  readonly extended?: boolean;
}

/** The calls the model makes in turn `turn` (ids are explicit so they are stable across processes). */
export function callsOfTurn(turn: number, extended = false): { id: string; name: string; args: unknown }[] {
  const calls: { id: string; name: string; args: unknown }[] = [
    { id: `t${turn}_lookup`, name: "lookup", args: { item: `item${turn}` } },
    { id: `t${turn}_reserve`, name: "reserve", args: { item: `item${turn}` } },
    { id: `t${turn}_charge`, name: "charge", args: { amount: turn + 1 } },
  ];
  if (extended && turn % 3 === 1) {
    calls.push({ id: `t${turn}_transfer`, name: "transfer", args: { amount: 1000 + turn } });
  }
  if (extended && turn % 3 === 2)
    calls.push({ id: `t${turn}_code`, name: "run_code", args: { code: programOf(turn) } });
  return calls;
}

/** The code-mode program of an extended turn: nested `<id>.1` reserves, `<id>.2` charges. */
function programOf(turn: number): string {
  return `const held = await tools.reserve({ item: "nested${turn}" });
const paid = await tools.charge({ amount: ${500 + turn} });
return { held, paid };`;
}

/** The nested calls the extended scenario's programs make, by id. */
export function nestedCallsOf(turns: number): { id: string; name: string }[] {
  return Array.from({ length: turns }, (_, turn) => turn)
    .filter((turn) => turn % 3 === 2)
    .flatMap((turn) => [
      { id: `t${turn}_code.1`, name: "reserve" },
      { id: `t${turn}_code.2`, name: "charge" },
    ]);
}

/** What the person approving a transfer edits the model's amount to: the only amount it may ever run with. */
export function decidedAmount(modelAmount: number): number {
  return modelAmount - 950;
}

/** The turn a request is for, from the history (so a model in a fresh process continues where the log stops). */
function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === "assistant").length;
}

export function scenarioModel(turns: number, extended = false): ScriptedModel {
  const step = (request: ModelRequest): ScriptedResponse => {
    const turn = turnOf(request);
    if (turn >= turns) return { text: `done after ${turns} turns` };
    return { toolCalls: callsOfTurn(turn, extended) };
  };
  return new ScriptedModel(Array.from({ length: turns + 2 }, () => step));
}

export function scenarioAgent(options: ScenarioOptions): Agent<Deps, string> {
  const { effectsFile, pause } = options;
  const seen = new Map<string, number>();
  const windowHook = async (toolName: string, window: Window, index: number): Promise<void> => {
    if (pause && pause.tool === toolName && pause.window === window && pause.nth === index) await hang(window);
  };
  const callIndex = (toolName: string, context: RunContext<Deps>): number =>
    Number(/^t(\d+)_/.exec(context.toolCallId ?? "")?.[1] ?? seen.get(toolName) ?? 0);
  const effect = (kind: Effect["kind"], toolName: string, context: RunContext<Deps>, key: string) =>
    appendFileSync(effectsFile, `${kind} ${toolName} ${context.toolCallId} ${key}\n`);
  const lookup = tool({
    name: "lookup",
    description: "Read-only lookup",
    input: z.object({ item: z.string() }),
    idempotent: true,
    execute: async ({ item }, context: RunContext<Deps>) => {
      const index = callIndex("lookup", context);
      await windowHook("lookup", "during", index);
      effect("READ", "lookup", context, item);
      await windowHook("lookup", "after-effect", index);
      return { item, price: item.length };
    },
  });
  const reserve = tool({
    name: "reserve",
    description: "Idempotent reservation",
    input: z.object({ item: z.string() }),
    idempotent: true,
    execute: async ({ item }, context: RunContext<Deps>) => {
      const index = callIndex("reserve", context);
      await windowHook("reserve", "during", index);
      effect("EFFECT", "reserve", context, context.idempotencyKey ?? "none");
      await windowHook("reserve", "after-effect", index);
      return {
        result: { reserved: item },
        update: ContextUpdate.new<Deps>()
          .set("counter", context.deps.counter + 1)
          .logEvent("reserved", { item }),
      };
    },
  });
  const charge = tool({
    name: "charge",
    description: "Non-idempotent charge",
    input: z.object({ amount: z.number() }),
    execute: async ({ amount }, context: RunContext<Deps>) => {
      const index = callIndex("charge", context);
      await windowHook("charge", "during", index);
      effect("EFFECT", "charge", context, String(amount));
      await windowHook("charge", "after-effect", index);
      return { charged: amount };
    },
  });
  const transfer = tool({
    name: "transfer",
    description: "Non-idempotent transfer that needs approval",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: async ({ amount }, context: RunContext<Deps>) => {
      const index = callIndex("transfer", context);
      await windowHook("transfer", "during", index);
      effect("EFFECT", "transfer", context, String(amount));
      await windowHook("transfer", "after-effect", index);
      return { transferred: amount };
    },
  });
  return new Agent<Deps, string>({
    model: scenarioModel(options.turns, options.extended),
    instructions: "Durability scenario",
    tools: options.extended
      ? [lookup, reserve, charge, transfer, codeMode({ tools: [reserve, charge], limits: { timeMs: 60_000 } })]
      : [lookup, reserve, charge],
    maxIterations: options.turns + 5,
    hooks: {
      preToolUse: async (call) => {
        const index = Number(/^t(\d+)_/.exec(call.toolCallId)?.[1] ?? 0);
        await windowHook(call.toolName, "before-intent", index);
        return undefined;
      },
    },
  });
}

/** Settles an in-doubt call by looking at the side effects: done → its result, not done → run it. */
export function reconcilePolicy(
  effectsFile: string,
  decided?: (id: string, decision: InDoubtDecision<Deps>) => void,
): InDoubtResolver<Deps> {
  const resolver: InDoubtResolver<Deps> = (call) => {
    const done = readEffects(effectsFile).some((line) => line.kind === "EFFECT" && line.toolCallId === call.toolCallId);
    const decision: InDoubtDecision<Deps> = done
      ? { type: "result", result: { reconciled: true, toolCallId: call.toolCallId } }
      : { type: "rerun" };
    decided?.(call.toolCallId, decision);
    return decision;
  };
  return resolver;
}

/**
 * Wraps a store: after each `append` resolves, writes `ACK <lastSeq>` to stdout synchronously; and
 * in the `after-intent` / `after-result` windows of the pause point, hangs once the commit holding the
 * call's `tool_call` / `tool_result` is acknowledged.
 */
export function ackingStore(inner: SessionStore, pause?: PausePoint): SessionStore {
  const matches = (events: readonly SessionEvent[], type: string): boolean =>
    pause !== undefined &&
    events.some((event) => {
      const data = event.data as { toolCallId?: string; toolName?: string };
      return event.type === type && data.toolCallId === `t${pause.nth}_${pause.tool}`;
    });
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return async (sessionId: string, events: readonly SessionEvent[], options: { expectedLastSeq: number }) => {
          await target.append(sessionId, events, options);
          const last = events.at(-1)?.seq ?? options.expectedLastSeq;
          writeSync(1, `ACK ${last}\n`);
          if (pause?.window === "after-intent" && matches(events, "tool_call")) await hang("after-intent");
          if (pause?.window === "after-result" && matches(events, "tool_result")) await hang("after-result");
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** An agent whose first turn asks for two `transfer` calls that need approval, then answers. */
export function approvalAgent(effectsFile: string): { agent: Agent<Deps, string>; model: ScriptedModel } {
  const transfer = tool({
    name: "transfer",
    description: "Moves money; needs approval",
    input: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: async ({ to, amount }, context: RunContext<Deps>) => {
      appendFileSync(effectsFile, `EFFECT transfer ${context.toolCallId} ${to}:${amount}\n`);
      return { sent: amount, to };
    },
  });
  const first: ScriptedResponse = {
    toolCalls: [
      { id: "a1", name: "transfer", args: { to: "alice", amount: 100 } },
      { id: "a2", name: "transfer", args: { to: "bob", amount: 5 } },
    ],
  };
  // The turn comes from the history, so a model in a resuming process does not start over.
  const step = (request: ModelRequest): ScriptedResponse =>
    turnOf(request) === 0 ? first : { text: "transfers handled" };
  const model = new ScriptedModel([step, step]);
  return { agent: new Agent<Deps, string>({ model, instructions: "Approvals", tools: [transfer] }), model };
}
