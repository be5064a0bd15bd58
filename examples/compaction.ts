/**
 * A long session kept within a small context window: 200 turns, a tool call in most, a 2,000-token
 * budget. A FunctionModel stands in for a provider (no key, no network): it looks records up, answers,
 * writes a summary when asked, and reports each request's size as its input tokens. Prints each
 * compaction, then shows that the log still holds every original event.
 *
 * Run: npx tsx examples/compaction.ts
 */
import { z } from "zod";
import {
  Agent,
  estimateRequestTokens,
  isEventOf,
  MemoryStore,
  projectMessages,
  summarizeHistory,
  tool,
} from "../src/index.js";
import { FunctionModel } from "../src/testing.js";

const lookup = tool({
  name: "lookup",
  description: "Looks an order up",
  input: z.object({ id: z.number() }),
  execute: ({ id }) => ({ id, status: "shipped", items: ["book", "lamp", "mug"], note: "left at the door ".repeat(5) }),
});

let summaries = 0;
const model = new FunctionModel((request) => {
  const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 20 };
  const last = request.messages.at(-1);
  if (request.toolChoice === "none")
    return { text: `Summary ${++summaries}: orders looked up so far were all shipped.`, usage };
  if (last?.role === "user" && typeof last.content === "string") {
    return { toolCalls: [{ name: "lookup", args: { id: Number(last.content.replace(/\D/g, "")) } }], usage };
  }
  return { text: "That order has shipped.", usage };
});

const store = new MemoryStore();
const agent = new Agent({
  model,
  instructions: "You answer questions about orders.",
  tools: [lookup],
  compaction: summarizeHistory({ maxTokens: 2_000, keepTurns: 2 }),
});

let seen = 0;
for (let turn = 1; turn <= 200; turn++) {
  const result = await agent.run(`Where is order ${turn}?`, { sessionId: "orders", store });
  for (const event of result.log.slice(seen)) {
    if (isEventOf(event, "compaction") && event.data.strategy === "summarize") {
      const { replaces, tokensBefore, tokensAfter } = event.data;
      console.log(`turn ${turn}: seq ${replaces.join("–")} summarized, ${tokensBefore} → ${tokensAfter} tokens`);
    }
  }
  seen = result.log.length;
}

const log = await store.read("orders");
console.log(
  `${log.length} events in the log, ${log.filter((event) => event.type === "user_message").length} prompts kept raw`,
);
const steps = model.requests.filter((request) => request.toolChoice !== "none");
console.log(`the model now sees ${projectMessages(log).length} messages`);
console.log(
  `largest request: ${Math.max(...steps.map(estimateRequestTokens))} tokens (summarization calls: ${Math.max(...model.requests.map(estimateRequestTokens))})`,
);
