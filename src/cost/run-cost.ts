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
 * What a sub-agent cost as its parent's log reports it (`subagent_completed`, `subagent_failed`):
 * the reported cost; a report without one (an older log) is unpriced when the child made requests.
 *
 * @example
 * childReportCost({ usage: { requests: 2 } }); // { usd: 0, partial: true }
 */
export function childReportCost(report: {
  readonly cost?: RunCost;
  readonly usage?: { readonly requests?: number };
}): RunCost {
  if (report.cost !== undefined) return report.cost;
  return (report.usage?.requests ?? 0) > 0 ? UNPRICED : noCost;
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
      cost = addCost(cost, childReportCost(event.data as { cost?: RunCost; usage?: { requests?: number } }));
    }
  }
  return cost;
}
