import { NousError } from "./nous-error.js";

/**
 * A test model (`ScriptedModel`, `ReplayModel`) was called more often than its script allows, or
 * with a request its recording does not match.
 *
 * @example
 * await expect(agent.run("hi")).rejects.toThrow(UnexpectedModelCallError);
 */
export class UnexpectedModelCallError extends NousError {
  readonly code = "unexpected_model_call";
  readonly fault = "internal" as const;
}
