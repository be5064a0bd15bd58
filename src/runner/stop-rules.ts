import {
  CostUnknownError,
  MaxIterationsExceededError,
  UsageLimitExceededError,
  type UsageLimitName,
} from "../errors/run-errors.js";
import type { RunState } from "./run-state.js";

/** Before a model request: the iteration and request budgets. */
export function checkRequestLimit<D extends object, O>(state: RunState<D, O>): void {
  const { maxIterations, limits } = state.config;
  if (state.iteration >= maxIterations) throw new MaxIterationsExceededError(maxIterations);
  exceeds("requests", limits.requests, state.usage.requests + 1);
  // Again here: a sub-agent's cost is added while the parent's tools run.
  checkCostLimit(state);
}

/** After a response: the token budgets. */
export function checkTokenLimits<D extends object, O>(state: RunState<D, O>): void {
  const { limits } = state.config;
  exceeds("inputTokens", limits.inputTokens, state.usage.inputTokens);
  exceeds("outputTokens", limits.outputTokens, state.usage.outputTokens);
  exceeds("totalTokens", limits.totalTokens, state.usage.totalTokens);
  checkCostLimit(state);
}

/** The money budget: spent so far, sub-agents included; a cost not fully known stops the run too. */
function checkCostLimit<D extends object, O>(state: RunState<D, O>): void {
  const allowed = state.config.limits.costUsd;
  if (allowed === undefined) return;
  if (state.cost.partial) throw new CostUnknownError(allowed);
  exceeds("costUsd", allowed, state.cost.usd);
}

/** Before a tool runs: the tool-call budget. */
export function checkToolCallLimit<D extends object, O>(state: RunState<D, O>): void {
  exceeds("toolCalls", state.config.limits.toolCalls, state.usage.toolCalls + 1);
}

function exceeds(limit: UsageLimitName, allowed: number | undefined, actual: number): void {
  if (allowed !== undefined && actual > allowed) throw new UsageLimitExceededError({ limit, allowed, actual });
}
