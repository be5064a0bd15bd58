/**
 * The main job: an agent with three tools runs on the rule-based OfflineModel (no key, no network),
 * or on the model named by NOUS_MODEL (for example NOUS_MODEL=openai:gpt-4o-mini with OPENAI_API_KEY).
 * It prints the streamed answer, the final deps and a short view of the session log. The session is
 * stored in the default SQLite store (.nous/sessions.db): `npx nous inspect` shows it in the browser.
 *
 * Run: npm start
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  Agent,
  ContextUpdate,
  isLogEvent,
  isSurfaceType,
  OFFLINE_NOTICE,
  OfflineModel,
  projectDeps,
  type RunContext,
  tool,
} from "../src/index.js";
import { SqliteStore } from "../src/sqlite.js";

type Todo = { id: number; text: string; done: boolean };
type Deps = { todos: Todo[]; preferences: { reminders: { channel: string; hour: number } } };

const addTodo = tool({
  name: "add_todo",
  description: "Add an item to the user's todo list",
  input: z.object({ text: z.string().min(1).describe("what to do") }),
  execute: ({ text }, context: RunContext<Deps>) => {
    const todo = { id: context.deps.todos.length + 1, text, done: false };
    return {
      result: { added: todo.id },
      update: ContextUpdate.new<Deps>().append("todos", todo), // state change, folded into deps
    };
  },
});

const setReminder = tool({
  name: "set_reminder",
  description: "Choose when and how to remind the user",
  input: z.object({ channel: z.enum(["email", "sms"]), hour: z.number().int().min(0).max(23) }),
  execute: ({ channel, hour }) => ({
    result: `Reminders by ${channel} at ${hour}:00`,
    update: ContextUpdate.new<Deps>()
      .merge("preferences", { reminders: { channel, hour } }) // deep merge
      .logEvent("audit", { action: "reminder_changed", channel }), // bookkeeping: never shown to the model
  }),
});

const countOpen = tool({
  name: "count_open",
  description: "Count the open todo items",
  input: z.object({}),
  execute: (_args, context: RunContext<Deps>) => ({ open: context.deps.todos.filter((todo) => !todo.done).length }),
});

// Offline (no NOUS_MODEL), a rule-based model maps the prompt to the right tools and arguments.
const model = process.env.NOUS_MODEL || new OfflineModel();
const agent = new Agent<Deps>({
  model,
  name: "todo-keeper",
  instructions: "You keep the user's todo list and reminder preferences. Use the tools, then confirm briefly.",
  tools: [addTodo, setReminder, countOpen],
});

const initial: Deps = { todos: [], preferences: { reminders: { channel: "email", hour: 9 } } };
console.log(typeof model === "string" ? `Model: ${model}` : `Model: offline:rules. ${OFFLINE_NOTICE}`);
const store = new SqliteStore(); // .nous/sessions.db under the working directory
const sessionId = `main-${randomUUID()}`;
console.log(`Session: ${sessionId} (stored in ${store.path})`);
console.log('Prompt: "Remind me to buy milk, by SMS in the morning."\n');

// The stream is the live tail of the session log: every event the run records (`kind: "event"`),
// with the model's text and tool-call fragments between them (`kind: "delta"`).
const stream = agent.stream("Remind me to buy milk, by SMS in the morning.", { deps: initial, sessionId, store });
for await (const event of stream) {
  if (event.kind === "delta") {
    if (event.type === "tool-call-end") console.log(`  → ${event.toolName}(${JSON.stringify(event.args)})`);
    if (event.type === "text-delta") process.stdout.write(event.text);
  } else if (isLogEvent(event, "tool_result")) {
    console.log(`  ← #${event.seq} ${event.data.toolName}: ${JSON.stringify(event.data.result)}`);
  } else if (isLogEvent(event, "context_update")) {
    console.log(
      `  · #${event.seq} context_update: ${event.data.operations.map((op) => `${op.op} ${op.key}`).join(", ")}`,
    );
  }
}
const result = await stream.result;

console.log("\n\nFinal deps (initial deps + the fold of the recorded context updates):");
console.log(JSON.stringify(result.deps, null, 2));
console.log(`\nSession log: ${result.log.length} events, ${result.messages.length} of them messages the model sees`);
for (const event of result.log) {
  const kind = isSurfaceType(event.type) ? "surface    " : "bookkeeping";
  console.log(
    `  #${String(event.seq).padStart(2)} ${kind} ${event.type.padEnd(18)} ${JSON.stringify(event.data).slice(0, 60)}`,
  );
}
const rebuilt = projectDeps(result.log, initial);
console.log(`\nDeps rebuilt from the log equal the result: ${JSON.stringify(rebuilt) === JSON.stringify(result.deps)}`);
console.log(
  `Usage: ${result.usage.requests} model requests, ${result.usage.toolCalls} tool calls, ${result.usage.totalTokens} tokens`,
);
await store.close();
console.log(`\nSee this run in the browser: npx nous inspect   (then open session ${sessionId})`);
console.log(`Or in the terminal: npx nous sessions show ${sessionId}`);
