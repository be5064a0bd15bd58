import { NousError } from "../errors/nous-error.js";
import { modelName } from "../models/model.js";
import type { MessageInput } from "../session/messages.js";
import { throwIfAborted } from "./abort.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";
import { assembleRequest } from "./prompt-assembly.js";
import { dispatchRequest } from "./request-dispatch.js";
import type { RunState } from "./run-state.js";
import { resolveStep } from "./step-resolution.js";
import type { Prompt, RunResult } from "./types.js";

/**
 * The agent loop: ask the model, resolve the step (run tools, accept a final answer, or ask again),
 * repeat. Yields stream events; returns the run's result. Every failure is recorded as `run_failed`
 * and rethrown with the log attached.
 */
export async function* runLoop<D extends object, O>(
  state: RunState<D, O>,
  prompt: Prompt,
  history: readonly MessageInput[],
): AsyncGenerator<AgentStreamEvent<O, D>, RunResult<O, D>> {
  const { runId, hooks, model, signal, options } = state.config;
  try {
    state.record("run_started", { runId, agent: options.name, model: modelName(model) });
    yield { type: "run-start", runId };
    await hooks.sessionStart?.({ runId, context: state.runContext() });
    for (const message of history) state.context = state.context.addMessage(message);
    state.context = state.context.addMessage({ role: "user", content: prompt });
    while (true) {
      throwIfAborted(signal);
      yield { type: "step-start", iteration: state.iteration };
      const request = await assembleRequest(state);
      const response = yield* dispatchRequest(state, request);
      const step = yield* resolveStep(state, response);
      yield { type: "step-end", iteration: state.iteration, finishReason: response.finishReason, usage: state.usage };
      state.iteration += 1;
      switch (step.type) {
        case "run-again":
          continue;
        case "final": {
          state.record("run_completed", { runId, output: step.output });
          const result = toResult(state, step.output);
          await hooks.sessionEnd?.({ runId, output: step.output });
          return result;
        }
        default: {
          const unhandled: never = step;
          throw new TypeError(`unknown step ${JSON.stringify(unhandled)}`);
        }
      }
    }
  } catch (error) {
    const code = NousError.isInstance(error) ? error.code : "unexpected_error";
    const message = error instanceof Error ? error.message : String(error);
    state.record("run_failed", { runId, error: { code, message } });
    if (NousError.isInstance(error)) error.log = state.context.log.events;
    await hooks.sessionEnd?.({ runId, error });
    throw error;
  }
}

function toResult<D extends object, O>(state: RunState<D, O>, output: O): RunResult<O, D> {
  state.context = state.context.withProgress({ usage: state.usage, iteration: state.iteration });
  return {
    runId: state.config.runId,
    output,
    deps: state.context.deps,
    messages: state.context.messages,
    log: state.context.log.events,
    usage: state.usage,
  };
}
