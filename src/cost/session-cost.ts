import type { SessionStore } from "../store/session-store.js";
import { sessionUsage } from "../sub-agents/session-usage.js";
import type { RunCost } from "./recorded-cost.js";

/**
 * What a session cost in USD, every sub-agent session once (`sessionUsage(…).cost`): the cost each
 * `model_response` recorded; responses of older logs, recorded without one, priced from the bundled
 * price data as it was at the event's time. `partial` when some response has no known price.
 *
 * @example
 * const { usd, partial } = await sessionCost(store, "team");
 * console.log(`$${usd.toFixed(4)}${partial ? " (some models unpriced)" : ""}`);
 */
export async function sessionCost(store: SessionStore, sessionId: string): Promise<RunCost> {
  return (await sessionUsage(store, sessionId)).cost;
}
