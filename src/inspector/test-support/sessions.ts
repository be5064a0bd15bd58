/**
 * Sessions for the inspector's tests, recorded by real agent runs on ScriptedModels: a shopping run
 * with tool calls, context updates, audit events, nested dispatch events and a sub-agent link that
 * pauses on a pending approval; the sub-agent's own completed session; and a failed run.
 */
import { z } from "zod";
import {
  Agent,
  ApprovalPendingError,
  ContextUpdate,
  MaxIterationsExceededError,
  type RunContext,
  type SessionStore,
  tool,
} from "../../index.js";
import { ScriptedModel } from "../../models/scripted-model.js";

export type ShopDeps = { cart: string[]; prefs: { theme: string }; paid?: number };

const addItem = tool({
  name: "add_item",
  description: "Add an item to the cart",
  input: z.object({ item: z.string() }),
  execute: async ({ item }, context: RunContext<ShopDeps>) => ({
    result: { added: item },
    update: ContextUpdate.new<ShopDeps>()
      .append("cart", item)
      .logEvent("audit", { action: "cart.add", item })
      .logEvent("code_dispatch", { parentToolCallId: context.toolCallId, toolName: "price_lookup", args: { item } })
      .logEvent("subagent_run", {
        parentToolCallId: context.toolCallId,
        agent: "researcher",
        childSessionId: "helper",
      }),
  }),
});

const setTheme = tool({
  name: "set_theme",
  description: "Change the theme",
  input: z.object({ theme: z.string() }),
  execute: async ({ theme }, _context: RunContext<ShopDeps>) => ({
    result: "ok",
    update: ContextUpdate.new<ShopDeps>().merge("prefs", { theme }),
  }),
});

const checkout = tool({
  name: "checkout",
  description: "Pay for the cart",
  input: z.object({ total: z.number() }),
  needsApproval: true,
  execute: async ({ total }, _context: RunContext<ShopDeps>) => ({
    result: { paid: total },
    update: ContextUpdate.new<ShopDeps>()
      .set("paid", total)
      .delete("cart")
      .logEvent("audit", { action: "paid", total }),
  }),
});

/** The shopping agent; its script's last step is the answer after the approved checkout. */
export function shopAgent(): Agent<ShopDeps> {
  const model = new ScriptedModel(
    [
      { toolCalls: [{ id: "c1", name: "add_item", args: { item: "milk <b>&</b> eggs" } }], usage: usage(120, 18) },
      { toolCalls: [{ id: "c2", name: "set_theme", args: { theme: "dark" } }], usage: usage(180, 12) },
      { toolCalls: [{ id: "c3", name: "checkout", args: { total: 12 } }], usage: usage(240, 9) },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { text: "Paid 12 for your cart.", usage: usage(300, 25) };
      },
    ],
    { modelId: "gpt-4o" },
  );
  // The scripted model has no price of its own: priced at gpt-4o's list rates (USD per million tokens).
  const pricing = { "gpt-4o": { input: 2.5, output: 10 } };
  return new Agent<ShopDeps>({ name: "shopper", model, tools: [addItem, setTheme, checkout], pricing });
}

function usage(inputTokens: number, outputTokens: number) {
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** Records the three sessions; returns the shopping agent (to resume "shop" after approval). */
export async function recordSessions(store: SessionStore): Promise<Agent<ShopDeps>> {
  const helper = new Agent({
    name: "researcher",
    model: new ScriptedModel([{ text: "Milk is 2.", usage: usage(50, 5) }], { modelId: "claude-sonnet-4-5" }),
  });
  await helper.run("Price of milk?", { sessionId: "helper", store });

  const flaky = new Agent<ShopDeps>({
    name: "flaky",
    maxIterations: 1,
    model: new ScriptedModel([{ toolCalls: [{ id: "f1", name: "set_theme", args: { theme: "x" } }] }], {
      modelId: "my-local-model",
    }),
    tools: [setTheme],
  });
  await flaky.run("Loop", { sessionId: "broken", store, deps: { cart: [], prefs: { theme: "light" } } }).then(
    () => {
      throw new Error("expected the flaky run to fail");
    },
    (error: unknown) => {
      if (!(error instanceof MaxIterationsExceededError)) throw error;
    },
  );

  const shop = shopAgent();
  await shop
    .run("Buy milk and eggs, dark theme please", {
      sessionId: "shop",
      store,
      deps: { cart: [], prefs: { theme: "light" } },
    })
    .then(
      () => {
        throw new Error("expected the shop run to pause for approval");
      },
      (error: unknown) => {
        if (!(error instanceof ApprovalPendingError)) throw error;
      },
    );
  return shop;
}

/** Resumes a shop session (its state comes back from the log; these deps are only the fallback). */
export async function resumeShop(agent: Agent<ShopDeps>, store: SessionStore, sessionId: string): Promise<void> {
  await agent.resume(sessionId, { store, deps: { cart: [], prefs: { theme: "light" } } });
}
