import type { SessionEvent } from "../session/events.js";
import { addCost, noCost, type RecordedCost, type RunCost } from "./recorded-cost.js";

const UNPRICED: RunCost = Object.freeze({ usd: 0, partial: true });

/**
 * What one response adds to a run's cost: its `usd`, or nothing and `partial` when it has no
 * known price (or was not priced).
 *
 * @example
 * responseCost({ source: "genai-prices@0.1.8", usd: 0.002 }); // { usd: 0.002, partial: false }
 * responseCost({ source: "genai-prices@0.1.8" });             // { usd: 0, partial: true }
 */
export function responseCost(cost: RecordedCost | undefined): RunCost {
  return typeof cost?.usd === "number" ? { usd: cost.usd, partial: false } : UNPRICED;
}

/**
 * What a run cost, from its events: the `cost` each `model_response` recorded, plus the cost its
 * sub-agents reported (`subagent_completed`, `subagent_failed`). A response without a recorded
 * price, or a child report without a cost that made requests, makes the total `partial`.
 *
 * @example
 * projectRunCost(eventsOfTheRun); // equals the run's result.cost
 */
export function projectRunCost(events: Iterable<SessionEvent>): RunCost {
  let cost = noCost;
  for (const event of events) {
    if (event.type === "model_response") {
      cost = addCost(cost, responseCost((event.data as { cost?: RecordedCost }).cost));
    } else if (event.type === "subagent_completed" || event.type === "subagent_failed") {
      const data = event.data as { cost?: RunCost; usage?: { requests?: number } };
      if (data.cost !== undefined) cost = addCost(cost, data.cost);
      else if ((data.usage?.requests ?? 0) > 0) cost = addCost(cost, UNPRICED);
    }
  }
  return cost;
}
