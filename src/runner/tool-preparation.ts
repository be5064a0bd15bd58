import { ApprovalPendingError, ToolRetriesExceededError } from "../errors/run-errors.js";
import type { ResponsePart } from "../models/model.js";
import { addUsage } from "../session/usage.js";
import type { AnyTool } from "../tools/tool.js";
import type { RunState } from "./run-state.js";
import { checkToolCallLimit } from "./stop-rules.js";
import { parseArgs } from "./tool-arguments.js";

export type ToolCallPart = Extract<ResponsePart, { type: "tool-call" }>;

/** A result the model sees without the tool running (unknown tool, bad arguments, denied, rejected). */
export interface ImmediateOutcome {
  readonly result: string;
  readonly isError: true;
}

/** A call that passed every check and may run, or the reason it may not. */
export type PreparedCall<D extends object> =
  | { readonly type: "run"; readonly call: ToolCallPart; readonly tool: AnyTool<D>; readonly args: unknown }
  | { readonly type: "skip"; readonly call: ToolCallPart; readonly outcome: ImmediateOutcome };

/**
 * Checks one call before it may run: known tool, JSON arguments, schema, `preToolUse`, approval,
 * the tool-call budget. Records the intent (`tool_call`) of a call that will run.
 */
export async function prepareToolCall<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
): Promise<PreparedCall<D>> {
  const { tools, hooks, options } = state.config;
  const skip = (result: string): PreparedCall<D> => ({ type: "skip", call, outcome: { result, isError: true } });
  const tool = tools.get(call.toolName);
  if (tool === undefined) {
    const known = [...tools.keys()].join(", ") || "none";
    return skip(`Unknown tool "${call.toolName}". Available tools: ${known}.`);
  }
  const parsed = parseArgs(call.argsText);
  if (!parsed.ok) return skip(failure(state, tool, `Invalid arguments for tool "${tool.name}": ${parsed.issues}`));
  let args = await validate(state, tool, parsed.value);
  if (typeof args === "string") return skip(args);

  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  const decision = await hooks.preToolUse?.({ ...identity, args: args.value }, state.runContext(identity));
  if (decision?.type === "deny") return skip(`Tool call denied: ${decision.reason}`);
  if (decision?.type === "modify") {
    args = await validate(state, tool, decision.args);
    if (typeof args === "string") return skip(args);
  }

  const needsApproval =
    typeof tool.needsApproval === "function"
      ? await tool.needsApproval(args.value, state.runContext(identity))
      : tool.needsApproval;
  if (needsApproval) {
    state.record("approval_requested", { ...identity, args: args.value });
    if (options.approvalHandler === undefined) throw new ApprovalPendingError(identity);
    const answer = await options.approvalHandler({ ...identity, args: args.value }, state.runContext(identity));
    switch (answer.type) {
      case "approve":
        state.record("approval_decided", { toolCallId: call.toolCallId, approved: true });
        break;
      case "reject":
        state.record("approval_decided", { toolCallId: call.toolCallId, approved: false, reason: answer.reason });
        return skip(`The user rejected this tool call${answer.reason ? `: ${answer.reason}` : "."}`);
      case "edit":
        state.record("approval_decided", { toolCallId: call.toolCallId, approved: true, args: answer.args });
        args = await validate(state, tool, answer.args);
        if (typeof args === "string") return skip(args);
        break;
      default: {
        const unhandled: never = answer;
        throw new TypeError(`unknown approval decision ${JSON.stringify(unhandled)}`);
      }
    }
  }

  checkToolCallLimit(state);
  state.usage = addUsage(state.usage, { toolCalls: 1 });
  state.record("tool_call", { ...identity, args: args.value });
  return { type: "run", call, tool, args: args.value };
}

async function validate<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  value: unknown,
): Promise<{ value: unknown } | string> {
  const result = await tool.schema.validate(value);
  return result.ok
    ? { value: result.value }
    : failure(state, tool, `Invalid arguments for tool "${tool.name}": ${result.issues}`);
}

/** Counts a failure the model must correct; past the tool's `retries` the run fails. Returns the message. */
export function failure<D extends object, O>(state: RunState<D, O>, tool: AnyTool<D>, message: string): string {
  const count = (state.toolFailures.get(tool.name) ?? 0) + 1;
  state.toolFailures.set(tool.name, count);
  if (count > tool.retries) {
    throw new ToolRetriesExceededError({ toolName: tool.name, retries: tool.retries, lastProblem: message });
  }
  return message;
}
