import { z } from "zod";
import {
  Agent,
  ContextUpdate,
  type DepsOperation,
  type Model,
  type RunContext,
  type SessionEvent,
  tool,
} from "../index.js";
import { OfflineModel } from "../models/offline-model.js";
import { TestModel } from "../testing.js";
import { evaluateArithmetic } from "./arithmetic.js";
import { listDirectory } from "./file-listing.js";

/** A note kept by the built-in assistant, in the session's deps (so it survives across turns). */
export interface Note {
  readonly id: number;
  readonly text: string;
  readonly at: string;
}

/** The built-in assistant's deps: state only (JSON), rebuilt from the session log on every turn. */
export type BuiltinDeps = { notes?: Note[] };

/** The name the built-in assistant records in `run_started` (and that `nous sessions list --agent` filters on). */
export const BUILTIN_AGENT_NAME = "nous-assistant";

export interface BuiltinAssistantOptions {
  /** A model or "provider:model" (default the rule-based `OfflineModel`; "test" is the schema-sampling TestModel). */
  model?: Model | string;
  maxIterations?: number;
  /** The directory the file-listing tool may see (default `process.cwd()`). */
  root?: string;
  /** The clock of event times (and of the tools, unless `clock` is given). */
  now?: () => Date;
  /** The clock of the date/time tool and of note timestamps (replay pins it to the recorded times). */
  clock?: () => Date;
}

/**
 * The built-in assistant's tools: current date/time, arithmetic (a safe evaluator, no `eval`),
 * notes kept through context updates (adding is free; deleting needs approval), and read-only
 * listing of directories inside the working directory (names and sizes, never contents).
 */
export function builtinTools(options: Pick<BuiltinAssistantOptions, "root" | "now" | "clock"> = {}) {
  const now = options.clock ?? options.now ?? (() => new Date());
  const root = options.root ?? process.cwd();

  const currentTime = tool({
    name: "current_time",
    description: "The current date and time (ISO 8601, UTC, and the local time zone).",
    input: z.object({}),
    execute: () => {
      const date = now();
      return {
        iso: date.toISOString(),
        local: date.toString(),
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      };
    },
  });

  const calculate = tool({
    name: "calculate",
    description: "Evaluate an arithmetic expression: numbers, + - * / % ^ (power) and parentheses.",
    input: z.object({
      expression: z
        .string()
        .min(1)
        .max(1000)
        .meta({ examples: ["(2 + 3) * 4"] }),
    }),
    idempotent: true,
    execute: ({ expression }) => ({ expression, value: evaluateArithmetic(expression) }),
  });

  const addNote = tool({
    name: "add_note",
    description: "Add a note for the user; notes are kept in this session across turns.",
    input: z.object({
      text: z
        .string()
        .min(1)
        .max(2000)
        .meta({ examples: ["Remember the milk"] }),
    }),
    execute: ({ text }, context: RunContext<BuiltinDeps>) => {
      const current = context.deps.notes ?? [];
      const note: Note = { id: Math.max(0, ...current.map((item) => item.id)) + 1, text, at: now().toISOString() };
      return {
        result: { added: note.id },
        update: ContextUpdate.new<BuiltinDeps>().append("notes", note).logEvent("note_added", { id: note.id }),
      };
    },
  });

  const listNotes = tool({
    name: "list_notes",
    description: "List the notes kept in this session.",
    input: z.object({}),
    idempotent: true,
    execute: (_args, context: RunContext<BuiltinDeps>) => ({ notes: context.deps.notes ?? [] }),
  });

  const deleteNote = tool({
    name: "delete_note",
    description: "Delete a note by its id. Needs the user's approval.",
    input: z.object({ id: z.number().int().min(1) }),
    needsApproval: true,
    execute: ({ id }, context: RunContext<BuiltinDeps>) => {
      const current = context.deps.notes ?? [];
      const remaining = current.filter((item) => item.id !== id);
      if (remaining.length === current.length) throw new Error(`There is no note ${id}`);
      return {
        result: { deleted: id },
        update: ContextUpdate.new<BuiltinDeps>().set("notes", remaining).logEvent("note_deleted", { id }),
      };
    },
  });

  const listFiles = tool({
    name: "list_files",
    description:
      "List a directory inside the working directory: names, types and sizes (never file contents). Paths are relative.",
    input: z.object({
      path: z
        .string()
        .max(1000)
        .default(".")
        .meta({ examples: ["."] }),
    }),
    idempotent: true,
    execute: ({ path }) => listDirectory(root, path ?? "."),
  });

  return [currentTime, calculate, addNote, listNotes, deleteNote, listFiles];
}

/**
 * A clock that gives, in order, the times the built-in tools read in a recorded session (the
 * `current_time` results and the times of added notes), then the real time: a replay of the
 * session then sees the same tool results.
 */
export function recordedClock(events: readonly SessionEvent[]): () => Date {
  const readings: Date[] = [];
  for (const event of events) {
    const data = event.data as { toolName?: string; result?: { iso?: unknown }; operations?: DepsOperation[] };
    if (event.type === "tool_result" && data.toolName === "current_time" && typeof data.result?.iso === "string") {
      readings.push(new Date(data.result.iso));
    }
    if (event.type === "context_update" && data.toolName === "add_note") {
      for (const operation of data.operations ?? []) {
        const at = operation.op === "append" ? (operation.item as Partial<Note> | undefined)?.at : undefined;
        if (typeof at === "string") readings.push(new Date(at));
      }
    }
  }
  let next = 0;
  return () => readings[next++] ?? new Date();
}

/**
 * The agent `nous run` and `nous chat` use when no agent file is given. Safe to expose to a model:
 * no tool writes files, reads file contents or reaches the network.
 *
 * @example
 * const agent = createBuiltinAssistant({ model: process.env.NOUS_MODEL }); // undefined: the OfflineModel
 * await agent.run("What is 2^10?", { sessionId: "s1", store });
 */
export function createBuiltinAssistant(options: BuiltinAssistantOptions = {}): Agent<BuiltinDeps> {
  return new Agent<BuiltinDeps>({
    name: BUILTIN_AGENT_NAME,
    // Offline, a rule-based model maps the prompt to the right tool and arguments. "test" is the
    // schema-sampling TestModel, calling every tool but delete_note (which would pause for approval).
    model:
      options.model === "test"
        ? new TestModel({ callTools: ["current_time", "calculate", "add_note", "list_notes", "list_files"] })
        : (options.model ?? new OfflineModel()),
    instructions:
      "You are a concise, helpful assistant in a terminal. Use the tools for dates, arithmetic, notes and listing files; never guess a computation.",
    tools: builtinTools(options),
    maxIterations: options.maxIterations,
    now: options.now,
  });
}
