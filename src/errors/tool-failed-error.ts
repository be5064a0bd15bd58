import type { ContextUpdate } from "../context/context-update.js";
import { NousError } from "./nous-error.js";

/**
 * Throw from a tool that failed after it had already done something: the run records `update`
 * (attributed to the call, folded into deps, its log events appended) and then the failure, as an
 * error result the model sees (`Tool "…" failed: <message>`). A tool can fail and still record
 * what it did; retries and budgets are those of any failed call. `SubAgentFailedError` is one.
 *
 * @example
 * execute: async ({ amount }, context: RunContext<Deps>) => {
 *   const hold = await bank.reserve(amount);
 *   try {
 *     return { result: await bank.charge(hold), update: ContextUpdate.new<Deps>().append("charges", hold.id) };
 *   } catch (error) {
 *     throw new ToolFailedError("the charge was declined; the amount stays reserved", {
 *       update: ContextUpdate.new<Deps>().append("holds", hold.id),
 *       cause: error,
 *     });
 *   }
 * }
 */
export class ToolFailedError<D extends object = Record<string, unknown>> extends NousError {
  readonly code: string = "tool_failed";
  readonly fault = "tool" as const;
  /** What the tool did before it failed; recorded like the update of a call that succeeded. */
  readonly update: ContextUpdate<D> | undefined;

  constructor(message: string, options: { update?: ContextUpdate<D>; cause?: unknown } = {}) {
    super({ message, cause: options.cause });
    this.update = options.update;
  }
}
