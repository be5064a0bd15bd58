import { LeaseLostError } from "../errors/lease-errors.js";
import { NousError } from "../errors/nous-error.js";
import { ApprovalPendingError, CancelledError, type PendingToolCall } from "../errors/run-errors.js";
import { type ModelResponse, modelName } from "../models/model.js";
import { redactError } from "../redaction/redact.js";
import type { PausedApproval } from "../session/events.js";
import type { MessageInput } from "../session/messages.js";
import { throwIfAborted } from "./abort.js";
import { compactBeforeRequest } from "./compaction-step.js";
import { ConsumerStoppedError } from "./event-channel.js";
import { assembleRequest } from "./prompt-assembly.js";
import { dispatchRequest } from "./request-dispatch.js";
import type { RunState } from "./run-state.js";
import { resolveStep } from "./step-resolution.js";
import { emitDelta } from "./streaming.js";
import type { Prompt, RunResult } from "./types.js";

/** How a run begins: a new prompt, or the continuation of an interrupted run. */
export type RunStart =
  | { readonly type: "prompt"; readonly prompt: Prompt; readonly history: readonly MessageInput[] }
  | { readonly type: "resume"; readonly pending: ModelResponse | undefined };

/**
 * The agent loop: ask the model, resolve the step (run tools, accept a final answer, or ask again),
 * repeat; returns the run's result. A streaming run hands every event it records to its reader
 * (`state.publish`), waiting for the reader after each step and tool result; the stages are plain
 * async functions either way. A pause for approval records `run_paused` and rethrows. Every
 * failure is recorded as `run_failed` and rethrown with the log attached, except a store failure:
 * that run is left unfinished, to be resumed.
 */
export async function runLoop<D extends object, O>(state: RunState<D, O>, start: RunStart): Promise<RunResult<O, D>> {
  const { runId, hooks, model, signal, options, emit } = state.config;
  try {
    if (start.type === "prompt") {
      const parent = state.config.parent;
      state.record("run_started", {
        runId,
        agent: options.name,
        ...(state.config.agentHash === undefined ? {} : { agentHash: state.config.agentHash }),
        model: modelName(model),
        ...(parent
          ? {
              parentSessionId: parent.sessionId,
              ...(parent.runId === undefined ? {} : { parentRunId: parent.runId }),
              parentToolCallId: parent.toolCallId,
              depth: state.config.depth,
            }
          : {}),
      });
    } else {
      state.record("run_resumed", { runId });
      // Claims the session before anything acts on it: of two concurrent resumers, one fails here.
      await state.commit();
    }
    await hooks.sessionStart?.({ runId, context: state.runContext() });
    if (start.type === "prompt") {
      for (const message of start.history) state.context = state.context.addMessage(message);
      state.context = state.context.addMessage({ role: "user", content: start.prompt });
      // Committed with the first model_request, before it is sent (one fsync for the start of the run).
    }
    if (emit) await state.publish(true);
    if (start.type === "resume" && start.pending !== undefined) {
      const step = await resolveStep(state, start.pending);
      await state.commit();
      if (step.type === "final") return await finish(state, step.output);
    }
    // What the log said about the interrupted turn applies to that turn only.
    state.resume = undefined;
    while (true) {
      throwIfAborted(signal);
      const assembled = assembleRequest(state);
      let request = assembled instanceof Promise ? await assembled : assembled;
      if (options.compaction !== undefined) request = await compactBeforeRequest(state, request);
      const response = await dispatchRequest(state, request);
      const step = await resolveStep(state, response);
      // A step's results are committed with the next model_request (before it is sent), a final
      // step's with run_completed: one fsync per step boundary.
      if (emit) await state.publish(true);
      state.iteration += 1;
      switch (step.type) {
        case "run-again":
          continue;
        case "final":
          return await finish(state, step.output);
        default: {
          const unhandled: never = step;
          throw new TypeError(`unknown step ${JSON.stringify(unhandled)}`);
        }
      }
    }
  } catch (caught) {
    // A stream whose reader stopped early just unwinds, as a generator would: nothing is recorded.
    if (caught instanceof ConsumerStoppedError) throw caught;
    // A lost lease aborts the run's signal; the run fails with the lease's error, not as cancelled.
    let error = caught instanceof CancelledError && caught.cause instanceof LeaseLostError ? caught.cause : caught;
    // A run waiting for approval is paused, not failed: its log ends with the requests and `run_paused`,
    // committed together (if they cannot be, the run stops on the store failure). A run whose store
    // failed stops as a crash would: whether its last commit landed is unknown and the store may not
    // take `run_failed` either, so it stays unfinished and `agent.resume` goes on from the log.
    let recorded = !isStoreFailure(error);
    if (error instanceof ApprovalPendingError) {
      state.record("run_paused", { runId, pending: error.pending.map(pausedApproval) });
      try {
        await state.commit();
      } catch (storeError) {
        error = storeError;
        recorded = false;
      }
    } else if (recorded) {
      const code = NousError.isInstance(error) ? error.code : "unexpected_error";
      const message = error instanceof Error ? error.message : String(error);
      state.record("run_failed", { runId, error: { code, message } });
      await state.commit()?.catch(() => {});
    }
    // The reader gets the events of the run's end, then its error (after a store failure, none the log may lack).
    if (recorded) state.publish(false);
    await state.end();
    // Not enumerable: a logged or printed error shows its message, not the whole session log.
    if (NousError.isInstance(error)) {
      Object.defineProperty(error, "log", {
        value: state.context.log.events,
        enumerable: false,
        writable: true,
        configurable: true,
      });
    }
    // Whatever threw it, the error leaves the run without a registered secret in its message or stack.
    redactError(error);
    await hooks.sessionEnd?.({ runId, error });
    throw error;
  }
}

/** A pending call as `run_paused` records it. */
function pausedApproval(call: PendingToolCall): PausedApproval {
  const { toolCallId, toolName, args, parentToolCallId, sessionId, path } = call;
  return {
    ...(sessionId === undefined ? {} : { sessionId }),
    toolCallId,
    toolName,
    args,
    ...(parentToolCallId === undefined ? {} : { parentToolCallId }),
    ...(path === undefined ? {} : { path }),
  };
}

function isStoreFailure(error: unknown): boolean {
  return NousError.isInstance(error) && error.fault === "store";
}

async function finish<D extends object, O>(state: RunState<D, O>, output: O): Promise<RunResult<O, D>> {
  const { runId, hooks } = state.config;
  if (state.config.output !== undefined) emitDelta(state, { kind: "output", type: "output", output });
  state.record("run_completed", { runId, output });
  await state.commit();
  await state.end();
  const result = toResult(state, output);
  await hooks.sessionEnd?.({ runId, output });
  // The last event, not waited on: a reader that stops at `run_completed` does not stop the run.
  state.publish(false);
  return result;
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
    cost: state.cost,
  };
}
