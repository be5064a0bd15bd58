import { OutputValidationError } from "../errors/run-errors.js";
import type { ModelResponse } from "../models/model.js";
import { extractJson, OUTPUT_TOOL_NAME, validateOutput } from "./output-spec.js";
import type { RunState } from "./run-state.js";
import { parseArgs } from "./tool-arguments.js";
import { executeToolCalls } from "./tool-execution.js";
import type { ToolCallPart } from "./tool-preparation.js";

/** What one turn decided. The loop switches on it. */
export type StepResult<O> = { readonly type: "final"; readonly output: O } | { readonly type: "run-again" };

const RUN_AGAIN = Object.freeze({ type: "run-again" } as const);

/** Decides what a model response means: run its tools, accept a final answer, or ask again. */
export async function resolveStep<D extends object, O>(
  state: RunState<D, O>,
  response: ModelResponse,
): Promise<StepResult<O>> {
  const calls = response.content.filter((part): part is ToolCallPart => part.type === "tool-call");
  const output = state.config.output;

  if (output?.mode === "tool") {
    const finalCall = calls.find((call) => call.toolName === OUTPUT_TOOL_NAME);
    if (finalCall !== undefined) {
      const parsed = parseArgs(finalCall.argsText);
      const checked = parsed.ok ? await validateOutput(output, parsed.value) : parsed;
      if (checked.ok) {
        for (const call of calls) {
          await recordResult(
            state,
            call,
            call === finalCall ? "Final result accepted." : "Not run: the final result was given in the same turn.",
            false,
          );
        }
        return { type: "final", output: checked.value };
      }
      countOutputFailure(state, checked.issues);
      const others = calls.filter((call) => call.toolName !== OUTPUT_TOOL_NAME);
      await executeToolCalls(state, others);
      for (const call of calls.filter((item) => item.toolName === OUTPUT_TOOL_NAME)) {
        await recordResult(
          state,
          call,
          `Invalid final result: ${checked.issues}. Fix it and call ${OUTPUT_TOOL_NAME} again.`,
          true,
        );
      }
      return { type: "run-again" };
    }
    if (calls.length > 0) {
      await executeToolCalls(state, calls);
      return { type: "run-again" };
    }
    countOutputFailure(state, "answered with text instead of calling the final result tool");
    askAgain(state, `Give your final answer by calling the ${OUTPUT_TOOL_NAME} tool.`);
    return { type: "run-again" };
  }

  if (calls.length > 0) {
    await executeToolCalls(state, calls);
    return RUN_AGAIN;
  }
  const text = response.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (output === undefined) return { type: "final", output: text as O };
  const parsed = extractJson(text);
  const checked = parsed.ok ? await validateOutput(output, parsed.value) : parsed;
  if (checked.ok) return { type: "final", output: checked.value };
  countOutputFailure(state, checked.issues);
  askAgain(
    state,
    `Your answer did not match the required output schema: ${checked.issues}. Answer again with valid JSON only.`,
  );
  return { type: "run-again" };
}

function countOutputFailure<D extends object, O>(state: RunState<D, O>, issues: string): void {
  state.outputFailures += 1;
  const allowed = state.config.outputRetries;
  if (state.outputFailures > allowed) throw new OutputValidationError({ retries: allowed, issues });
}

function askAgain<D extends object, O>(state: RunState<D, O>, text: string): void {
  state.context = state.context.addMessage({ role: "user", content: text });
}

async function recordResult<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
  result: string,
  isError: boolean,
): Promise<void> {
  const identity = { toolCallId: call.toolCallId, toolName: call.toolName };
  state.context = state.context.addMessage({ role: "tool", ...identity, result, isError });
  const publishing = state.publish(true);
  if (publishing) await publishing;
}
