/**
 * The rules `OfflineModel` answers with: each maps a kind of prompt to calls of a tool the agent
 * has (by its conventional name), then turns the tool results into one sentence.
 */
import type { ToolDefinition } from "./model.js";
import { findExpression, findFolder, findHour, findNoteText, findTask } from "./offline-parse.js";

/** A tool call a rule plans. */
export interface OfflineToolCall {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A planned call with what the tool returned (an error result: `isError`, the message in `result`). */
export interface OfflineToolResult extends OfflineToolCall {
  readonly result: unknown;
  readonly isError: boolean;
}

/**
 * One thing the offline model understands.
 *
 * @example
 * const weather: OfflineRule = {
 *   name: "weather",
 *   plan: (prompt, tools) =>
 *     /weather/i.test(prompt) && tools.some((t) => t.name === "get_weather") ? [{ name: "get_weather", args: {} }] : undefined,
 *   answer: ([call]) => `It is ${JSON.stringify(call?.result)} outside.`,
 * };
 * new OfflineModel({ rules: [weather, ...offlineRules] });
 */
export interface OfflineRule {
  readonly name: string;
  /** The calls this rule makes for the prompt, given the agent's tools; undefined (or empty) when it does not apply. */
  plan(prompt: string, tools: readonly ToolDefinition[]): readonly OfflineToolCall[] | undefined;
  /** One sentence from the results of the calls it planned, in order. */
  answer(results: readonly OfflineToolResult[]): string;
}

function has(tools: readonly ToolDefinition[], name: string): ToolDefinition | undefined {
  return tools.find((tool) => tool.name === name);
}

/** The name of the first string property of a tool's input schema ("expression", "text"). */
function stringProperty(tool: ToolDefinition, fallback: string): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  return Object.entries(properties).find(([, schema]) => schema.type === "string")?.[0] ?? fallback;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** What a failed call said, in one line. */
export function failure(call: OfflineToolResult): string {
  const result = record(call.result);
  const message = typeof call.result === "string" ? call.result : (result.message ?? result.error ?? call.result);
  return `${call.name} failed: ${typeof message === "string" ? message : JSON.stringify(message)}`;
}

function single(name: string, args: Record<string, unknown> = {}): OfflineToolCall[] {
  return [{ name, args }];
}

const calculate: OfflineRule = {
  name: "arithmetic",
  plan: (prompt, tools) => {
    const tool = has(tools, "calculate");
    const expression = tool && findExpression(prompt);
    return tool && expression ? single(tool.name, { [stringProperty(tool, "expression")]: expression }) : undefined;
  },
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const result = record(call.result);
    const expression = result.expression ?? Object.values(call.args)[0];
    return `${String(expression)} = ${String(result.value ?? call.result)}`;
  },
};

const currentTime: OfflineRule = {
  name: "time",
  plan: (prompt, tools) =>
    has(tools, "current_time") &&
    /\b(?:what time|the time|time is it|what day|which day|the date|today'?s date|what'?s the date|current (?:time|date))\b/i.test(
      prompt,
    )
      ? single("current_time")
      : undefined,
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const result = record(call.result);
    const date = new Date(String(result.iso));
    if (Number.isNaN(date.getTime())) return `It is ${JSON.stringify(call.result)}.`;
    const timeZone = typeof result.timeZone === "string" ? result.timeZone : "UTC";
    const text = date.toLocaleString("en-US", { timeZone, dateStyle: "full", timeStyle: "short" });
    return `It is ${text} (${timeZone}).`;
  },
};

const addTodo: OfflineRule = {
  name: "todo",
  plan: (prompt, tools) => {
    const tool = has(tools, "add_todo");
    const task = tool && findTask(prompt);
    return tool && task ? single(tool.name, { [stringProperty(tool, "text")]: task }) : undefined;
  },
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const added = record(call.result).added;
    return `Added "${String(Object.values(call.args)[0])}" to your todo list${added === undefined ? "" : ` (item ${added})`}.`;
  },
};

/** The values of a tool's enum property that the prompt names ("by SMS" → "sms"). */
function enumChoice(tool: ToolDefinition, prompt: string): [string, string] | undefined {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { enum?: unknown }>;
  for (const [key, schema] of Object.entries(properties)) {
    if (!Array.isArray(schema.enum)) continue;
    for (const value of schema.enum) {
      if (typeof value !== "string") continue;
      const spelled = value.replace(/[-_ ]?/g, "[-_ ]?");
      if (new RegExp(`\\b${spelled}\\b`, "i").test(prompt)) return [key, value];
    }
  }
  return undefined;
}

const setReminder: OfflineRule = {
  name: "reminder",
  plan: (prompt, tools) => {
    const tool = has(tools, "set_reminder");
    if (tool === undefined || !/\bremind|\breminder|\bnotify|\balert/i.test(prompt)) return undefined;
    const choice = enumChoice(tool, prompt);
    const hour = findHour(prompt);
    const properties = Object.keys((tool.inputSchema.properties ?? {}) as object);
    const hourKey = properties.find((key) => /hour|time/i.test(key));
    const args: Record<string, unknown> = {};
    if (choice) args[choice[0]] = choice[1];
    if (hourKey && hour !== undefined) args[hourKey] = hour;
    const required = (tool.inputSchema.required ?? []) as string[];
    const complete = required.every((key) => key in args);
    return complete && Object.keys(args).length > 0 ? single(tool.name, args) : undefined;
  },
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const values = Object.entries(call.args);
    const channel = values.find(([, value]) => typeof value === "string")?.[1];
    const hour = values.find(([, value]) => typeof value === "number")?.[1];
    const how = typeof channel === "string" ? ` by ${channel.length <= 3 ? channel.toUpperCase() : channel}` : "";
    const when = typeof hour === "number" ? ` at ${hour}:00` : "";
    return `I will remind you${how}${when}.`;
  },
};

const countOpen: OfflineRule = {
  name: "count",
  plan: (prompt, tools) =>
    has(tools, "count_open") && /\bhow many\b|\bcount\b|\bopen (?:items|todos|tasks)\b/i.test(prompt)
      ? single("count_open")
      : undefined,
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const open = record(call.result).open ?? call.result;
    return `You have ${String(open)} open todo item${open === 1 ? "" : "s"}.`;
  },
};

const addNote: OfflineRule = {
  name: "note",
  plan: (prompt, tools) => {
    const tool = has(tools, "add_note");
    if (tool === undefined) return undefined;
    // Without a todo tool, a reminder is kept as a note.
    const text = findNoteText(prompt) ?? (has(tools, "add_todo") ? undefined : findTask(prompt));
    return text ? single(tool.name, { [stringProperty(tool, "text")]: text }) : undefined;
  },
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const added = record(call.result).added;
    return `Noted: "${String(Object.values(call.args)[0])}"${added === undefined ? "" : ` (note ${added})`}.`;
  },
};

const listNotes: OfflineRule = {
  name: "notes",
  plan: (prompt, tools) =>
    has(tools, "list_notes") &&
    /\b(?:list|show|read|what are|what's in|see)\b.*\bnotes\b|^\s*(?:my )?notes\??$/i.test(prompt)
      ? single("list_notes")
      : undefined,
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const notes = record(call.result).notes;
    if (!Array.isArray(notes) || notes.length === 0) return "You have no notes yet.";
    const items = notes.map((note) => `${String(record(note).id)}. ${String(record(note).text)}`);
    return `You have ${notes.length} note${notes.length === 1 ? "" : "s"}: ${items.join("; ")}.`;
  },
};

const deleteNote: OfflineRule = {
  name: "delete note",
  plan: (prompt, tools) => {
    const match = /\b(?:delete|remove|drop)\s+(?:the\s+)?note\s*(?:number\s*|#\s*)?(\d+)/i.exec(prompt);
    return has(tools, "delete_note") && match ? single("delete_note", { id: Number(match[1]) }) : undefined;
  },
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    return `Deleted note ${String(call.args.id)}.`;
  },
};

const listFiles: OfflineRule = {
  name: "files",
  plan: (prompt, tools) =>
    has(tools, "list_files") && /\b(?:files?|folders?|directory|directories|ls)\b/i.test(prompt)
      ? single("list_files", { path: findFolder(prompt) })
      : undefined,
  answer: ([call]) => {
    if (call === undefined || call.isError) return call ? failure(call) : "";
    const listing = record(call.result);
    const entries = Array.isArray(listing.entries) ? listing.entries.map(record) : [];
    const shown = entries.map((entry) =>
      entry.type === "directory"
        ? `${String(entry.name)}/`
        : typeof entry.size === "number"
          ? `${String(entry.name)} (${entry.size} bytes)`
          : String(entry.name),
    );
    const where = String(listing.path ?? call.args.path ?? ".");
    if (shown.length === 0) return `${where} is empty.`;
    const more = listing.truncated === true ? ", and more" : "";
    return `${where} holds ${shown.length} entr${shown.length === 1 ? "y" : "ies"}: ${shown.join(", ")}${more}.`;
  },
};

/**
 * The default rules, in the order their answers are given: arithmetic (`calculate`), time
 * (`current_time`), todos (`add_todo`), reminders (`set_reminder`), counting (`count_open`), notes
 * (`add_note`, `list_notes`, `delete_note`) and file listing (`list_files`). A rule applies only when
 * the agent has its tool.
 */
export const offlineRules: readonly OfflineRule[] = [
  calculate,
  currentTime,
  addTodo,
  setReminder,
  countOpen,
  addNote,
  listNotes,
  deleteNote,
  listFiles,
];
