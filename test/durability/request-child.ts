/**
 * Child process of the model-request crash test. Usage:
 *   node … request-child.ts <sqlitePath> <sessionId> <baseURL> <run|resume> <stream|generate>
 * Runs (or resumes) an agent with one tool on an OpenAI Chat Completions model at `baseURL` (a
 * loopback wire server in the parent), retries after 100 ms, on a SQLite store. Prints
 * `EFFECT add a b` when the tool runs and `DONE <output>` at the end, or `ERROR <code> <message>`.
 */
import { writeSync } from "node:fs";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createOpenAIChatModel } from "../../src/models/providers/openai-chat.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { tool } from "../../src/tools/tool.js";

const [path = "", sessionId = "s", baseURL = "", mode = "run", how = "generate"] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);

const add = tool({
  name: "add",
  description: "Add two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    say(`EFFECT add ${a} ${b}`);
    return a + b;
  },
});

const agent = new Agent({
  name: "adder",
  model: createOpenAIChatModel("gpt-4o-mini", { baseURL, apiKey: "sk-test-request-child-0123456789" }),
  instructions: "Add numbers with the tool.",
  tools: [add],
  retry: { maxRetries: 2, initialDelayMs: 100, jitter: 0 },
});

const store = new SqliteStore({ path });
try {
  const lease = { ttlMs: 1_000 };
  let output: unknown;
  if (mode === "resume") output = (await agent.resume(sessionId, { store, lease })).output;
  else if (how === "stream") {
    const stream = agent.stream("What is 2 + 3?", { sessionId, store, lease });
    for await (const _event of stream);
    output = (await stream.result).output;
  } else output = (await agent.run("What is 2 + 3?", { sessionId, store, lease })).output;
  say(`DONE ${JSON.stringify(output)}`);
} catch (error) {
  const code = (error as { code?: string }).code ?? "unexpected";
  say(`ERROR ${code} ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await store.close();
}
