/**
 * The main job: a small, runnable tour of a context update and the session log.
 * Run: npm start
 */
import { AgentContext, ContextUpdate, projectDeps, serializeLog } from "../src/index.js";

type Deps = { todos: { text: string; done: boolean }[]; settings: { theme: string; fontSize: number } };

const initial: Deps = { todos: [], settings: { theme: "light", fontSize: 14 } };
let context = AgentContext.create({ deps: initial });

context = context.addMessage({ role: "user", content: "Remind me to buy milk, and use the dark theme." });

// What a tool returns: operations on deps plus an audit record the model never sees.
const update = ContextUpdate.new<Deps>()
  .append("todos", { text: "buy milk", done: false })
  .merge("settings", { theme: "dark" })
  .logEvent("db_write", { table: "todos", rows: 1 });
context = update.apply(context);
context = context.addMessage({ role: "assistant", content: "Added 'buy milk' and switched to the dark theme." });

console.log("Deps after the update:");
console.log(JSON.stringify(context.deps, null, 2));
console.log("\nSession log (surface events become messages; bookkeeping does not):");
for (const event of context.log.events) {
  const kind = ["user_message", "assistant_message", "tool_result", "system_message"].includes(event.type)
    ? "surface    "
    : "bookkeeping";
  console.log(`  #${event.seq} ${kind} ${event.type.padEnd(18)} ${JSON.stringify(event.data).slice(0, 70)}`);
}
console.log(`\nThe model sees ${context.messages.length} messages; the log holds ${context.log.length} events.`);
const rebuilt = projectDeps(context.log, initial);
console.log(
  `Deps rebuilt from the log equal the live deps: ${JSON.stringify(rebuilt) === JSON.stringify(context.deps)}`,
);
console.log(`Serialized log: ${serializeLog(context.log).length} bytes of JSON (schemaVersion 1).`);
