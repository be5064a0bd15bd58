import type { ModelUsage } from "../models/model.js";
import type { SessionEvent } from "../session/events.js";
import { priceWithSource } from "./price-response.js";
import { loadPriceSource, type PriceModule } from "./price-source.js";
import { addCost, noCost, type RecordedCost, type RunCost } from "./recorded-cost.js";
import { responseCost } from "./run-cost.js";

interface ResponseData {
  readonly model?: unknown;
  readonly usage?: ModelUsage;
  readonly cost?: RecordedCost;
}

/**
 * The cost of one `model_response`: the one it recorded, else (a log written before costs were
 * recorded, or with `pricing: false`) priced now from the bundled data at the prices of the
 * event's time — which needs the price module (`undefined`: not priced).
 *
 * @example
 * costOfResponse(event, await loadPriceSource())?.usd;
 */
export function costOfResponse(event: SessionEvent, prices: PriceModule | undefined): RecordedCost | undefined {
  const data = (event.data ?? {}) as ResponseData;
  if (data.cost !== undefined) return data.cost;
  if (prices === undefined || typeof data.model !== "string") return undefined;
  const at = new Date(event.at);
  return priceWithSource(prices, data.model, data.usage ?? {}, Number.isNaN(at.getTime()) ? undefined : at);
}

/**
 * The price module when some response of `events` recorded no cost (loading it only then), else
 * undefined: what `costOfResponse` needs to price an older log.
 *
 * @example
 * const prices = await loadPricesIfNeeded(events);
 * events.filter((event) => event.type === "model_response").map((event) => costOfResponse(event, prices));
 */
export async function loadPricesIfNeeded(events: readonly SessionEvent[]): Promise<PriceModule | undefined> {
  const unpriced = events.some(
    (event) => event.type === "model_response" && (event.data as ResponseData | undefined)?.cost === undefined,
  );
  if (!unpriced) return undefined;
  try {
    return await loadPriceSource();
  } catch {
    return undefined;
  }
}

/** What a session's own responses cost: each one's recorded cost, or priced now (see `costOfResponse`). */
export async function projectSessionCost(events: readonly SessionEvent[]): Promise<RunCost> {
  const prices = await loadPricesIfNeeded(events);
  let cost = noCost;
  for (const event of events) {
    if (event.type === "model_response") cost = addCost(cost, responseCost(costOfResponse(event, prices)));
  }
  return cost;
}
