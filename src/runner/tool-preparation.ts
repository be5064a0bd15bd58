import type { ContextUpdate } from "../context/context-update.js";
import {
  ApprovalPendingError,
  type PendingToolCall,
  ToolInDoubtError,
  ToolRetriesExceededError,
} from "../errors/run-errors.js";
import type { ResponsePart } from "../models/model.js";
import { intentArgs } from "../session/json-value.js";
import { addUsage } from "../session/usage.js";
import type { ValidationResult } from "../tools/schema.js";
import { type AnyTool, DEFAULT_TOOL_RETRIES } from "../tools/tool.js";
import type { RunState } from "./run-state.js";
import { checkToolCallLimit } from "./stop-rules.js";
import { parseArgs } from "./tool-arguments.js";
import type { ApprovalDecision } from "./types.js";

export type ToolCallPart = Extract<ResponsePart, { type: "tool-call" }>;

/** A result the model sees without the tool running (unknown tool, bad arguments, denied, rejected, settled). */
export interface ImmediateOutcome<D extends object = Record<string, unknown>> {
  readonly result: unknown;
  readonly isError: boolean;
  /** The state change of an in-doubt call settled by hand. */
  readonly update?: ContextUpdate<D>;
}

/** A call that passed every check and may run, or the reason it may not. */
export type PreparedCall<D extends object> =
  | { readonly type: "run"; readonly call: ToolCallPart; readonly tool: AnyTool<D>; readonly args: unknown }
  | { readonly type: "skip"; readonly call: ToolCallPart; readonly outcome: ImmediateOutcome<D> };

/**
 * Checks one call before it may run: known tool, JSON arguments, schema, `preToolUse`, approval,
 * the tool-call budget. Records the intent (`tool_call`) of a call that will run. Synchronous for
 * the common call (a synchronous schema, no hook, no approval, nothing to resume, nothing to commit).
 */
export function prepareToolCall<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
): PreparedCall<D> | Promise<PreparedCall<D>> {
  const { tools, hooks } = state.config;
  const tool = tools.get(call.toolName);
  if (tool === undefined) {
    const known = [...tools.keys()].join(", ") || "none";
    return skip(call, unknownTool(state, call.toolName, `Unknown tool "${call.toolName}". Available tools: ${known}.`));
  }
  const parsed = parseArgs(call.argsText);
  if (!parsed.ok)
    return skip(call, failure(state, tool, `Invalid arguments for tool "${tool.name}": ${parsed.issues}`));
  const checked = validate(state, tool, parsed.value);
  if (checked instanceof Promise || state.resume !== undefined || hooks.preToolUse || tool.needsApproval !== false) {
    return prepareChecked(state, call, tool, checked);
  }
  return typeof checked === "string" ? skip(call, checked) : admit(state, call, tool, checked.value, false);
}

/** Validated arguments, or the problem as the model will read it. */
type Checked = { value: unknown } | string;

function skip<D extends object>(call: ToolCallPart, result: string): PreparedCall<D> {
  return { type: "skip", call, outcome: { result, isError: true } };
}

/** Counts and records the intent of a call that passed every check; resolves once it is committed. */
function admit<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
  tool: AnyTool<D>,
  args: unknown,
  rerun: boolean,
): PreparedCall<D> | Promise<PreparedCall<D>> {
  checkToolCallLimit(state);
  state.usage = addUsage(state.usage, { toolCalls: 1 });
  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  const recorded = intentArgs(args, () => JSON.parse(call.argsText));
  state.record("tool_call", rerun ? { ...identity, args: recorded, rerun } : { ...identity, args: recorded });
  const prepared: PreparedCall<D> = { type: "run", call, tool, args };
  const committing = state.commit();
  return committing ? committing.then(() => prepared) : prepared;
}

/** The rest of the checks, any of which may wait: resume decisions, `preToolUse`, approval. */
async function prepareChecked<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
  tool: AnyTool<D>,
  checked: Checked | Promise<Checked>,
): Promise<PreparedCall<D>> {
  const { hooks, options } = state.config;
  let args = await checked;
  if (typeof args === "string") return skip(call, args);

  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  if (state.resume?.inDoubt.has(call.toolCallId)) return settleInDoubt(state, call, tool);
  const decision = hooks.preToolUse
    ? await hooks.preToolUse({ ...identity, args: args.value }, state.runContext(identity))
    : undefined;
  if (decision?.type === "deny") return skip(call, `Tool call denied: ${decision.reason}`);
  if (decision?.type === "modify") {
    args = await validate(state, tool, decision.args);
    if (typeof args === "string") return skip(call, args);
  }

  const needsApproval =
    typeof tool.needsApproval === "function"
      ? await tool.needsApproval(args.value, state.runContext(identity))
      : tool.needsApproval;
  if (needsApproval) {
    const recorded = state.resume?.decided.get(call.toolCallId);
    let answer: { approved: boolean; args?: unknown; reason?: string };
    if (recorded !== undefined) {
      answer = recorded;
    } else {
      state.record("approval_requested", { ...identity, args: args.value });
      // Committed with `run_paused` (the run loop records it).
      if (options.approvalHandler === undefined) throw new ApprovalPendingError([{ ...identity, args: args.value }]);
      const given = await options.approvalHandler({ ...identity, args: args.value }, state.runContext(identity));
      answer = toDecision(given);
      state.record("approval_decided", { toolCallId: call.toolCallId, ...answer });
    }
    if (!answer.approved) {
      return skip(call, `The user rejected this tool call${answer.reason ? `: ${answer.reason}` : "."}`);
    }
    if (answer.args !== undefined) {
      args = await validate(state, tool, answer.args);
      if (typeof args === "string") return skip(call, args);
    }
  }
  return admit(state, call, tool, args.value, false);
}

/**
 * A call whose intent was committed and whose result was not. Its intent records the arguments it
 * ran with — after the hooks and the approval decision, edits included — so a re-run uses those, the
 * resolver is shown those, and neither hook nor approval is asked again: the decision was made.
 */
async function settleInDoubt<D extends object, O>(
  state: RunState<D, O>,
  call: ToolCallPart,
  tool: AnyTool<D>,
): Promise<PreparedCall<D>> {
  const identity = { toolCallId: call.toolCallId, toolName: tool.name };
  const args = state.resume?.intentArgs.get(call.toolCallId);
  // A replayable tool journals its effects through nested calls: re-running it replays them. A call
  // that paused the run (a nested call or its sub-agent waits for approval) runs again the same way.
  if (!tool.idempotent && !tool.replayable && !state.resume?.paused?.has(call.toolCallId)) {
    const settled = await state.config.resolveInDoubt?.({ ...identity, args });
    if (settled === undefined) throw new ToolInDoubtError({ ...identity, args });
    if (settled.type === "result") {
      const { result, isError = false, update } = settled;
      return { type: "skip", call, outcome: update === undefined ? { result, isError } : { result, isError, update } };
    }
  }
  const checked = await tool.schema.validate(args);
  if (!checked.ok) {
    const problem = `The recorded arguments of in-doubt call "${call.toolCallId}" no longer fit tool "${tool.name}": ${checked.issues}`;
    return skip(call, problem);
  }
  return admit(state, call, tool, checked.value, true);
}

/** An approval handler's answer as the log records it (`approval_decided`). */
export function toDecision(given: ApprovalDecision): { approved: boolean; args?: unknown; reason?: string } {
  switch (given.type) {
    case "approve":
      return { approved: true };
    case "reject":
      return given.reason === undefined ? { approved: false } : { approved: false, reason: given.reason };
    case "edit":
      return { approved: true, args: given.args };
    default: {
      const unhandled: never = given;
      throw new TypeError(`unknown approval decision ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * Without an approval handler, a turn's calls that need approval are all requested up front (several
 * per turn are fine), and the run pauses with `ApprovalPendingError` before any call of
 * the turn runs. Calls already decided (on resume) pass; calls still pending pause the run again.
 */
export function requestApprovals<D extends object, O>(
  state: RunState<D, O>,
  calls: readonly ToolCallPart[],
): Promise<void> | undefined {
  const { options, tools } = state.config;
  if (options.approvalHandler !== undefined || !mayNeedApproval(tools)) return undefined;
  return requestPending(state, calls);
}

const approvalByTools = new WeakMap<object, boolean>();

/** Whether any tool of the map can need approval (fixed for an agent, so worked out once). */
function mayNeedApproval<D extends object>(tools: ReadonlyMap<string, AnyTool<D>>): boolean {
  let may = approvalByTools.get(tools);
  if (may === undefined) {
    may = [...tools.values()].some((tool) => tool.needsApproval !== false);
    approvalByTools.set(tools, may);
  }
  return may;
}

async function requestPending<D extends object, O>(
  state: RunState<D, O>,
  calls: readonly ToolCallPart[],
): Promise<void> {
  const pending: PendingToolCall[] = [];
  for (const call of calls) {
    const tool = state.config.tools.get(call.toolName);
    if (tool === undefined || tool.needsApproval === false || state.resume?.decided.has(call.toolCallId)) continue;
    if (state.resume?.inDoubt.has(call.toolCallId)) continue;
    const parsed = parseArgs(call.argsText);
    const checked = parsed.ok ? await tool.schema.validate(parsed.value) : parsed;
    if (!checked.ok) continue;
    const identity = { toolCallId: call.toolCallId, toolName: tool.name };
    const needs =
      typeof tool.needsApproval === "function"
        ? await tool.needsApproval(checked.value, state.runContext(identity))
        : tool.needsApproval;
    if (!needs) continue;
    if (!state.resume?.pending.has(call.toolCallId)) {
      state.record("approval_requested", { ...identity, args: checked.value });
    }
    pending.push({ ...identity, args: checked.value });
  }
  // The requests are committed with `run_paused` (the run loop records it), in one commit.
  if (pending.length > 0) throw new ApprovalPendingError(pending);
}

/** The validated arguments, or the problem (as the model will read it). Synchronous when the schema is. */
function validate<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  value: unknown,
): Checked | Promise<Checked> {
  const result = tool.schema.validate(value);
  // No closure on the synchronous path: this runs for every tool call.
  return result instanceof Promise
    ? result.then((settled) => checkedArguments(state, tool, settled))
    : checkedArguments(state, tool, result);
}

function checkedArguments<D extends object, O>(
  state: RunState<D, O>,
  tool: AnyTool<D>,
  result: ValidationResult<unknown>,
): Checked {
  return result.ok
    ? { value: result.value }
    : failure(state, tool, `Invalid arguments for tool "${tool.name}": ${result.issues}`);
}

/**
 * Counts a failure the model must correct; past the tool's `retries` consecutive failures (a success
 * resets the count, see `RunState.toolSucceeded`) the run fails. Returns the message.
 */
export function failure<D extends object, O>(state: RunState<D, O>, tool: AnyTool<D>, message: string): string {
  const count = (state.toolFailures.get(tool.name) ?? 0) + 1;
  state.toolFailures.set(tool.name, count);
  if (count > tool.retries) {
    throw new ToolRetriesExceededError({ toolName: tool.name, retries: tool.retries, lastProblem: message });
  }
  return message;
}

/** Retries allowed to calls naming an unknown tool, all names together: a tool's default `retries`. */
const UNKNOWN_TOOL_RETRIES = DEFAULT_TOOL_RETRIES;

/** Counts a call naming an unknown tool against the run-wide budget (consecutive, like a tool's); past it the run fails. */
function unknownTool<D extends object, O>(state: RunState<D, O>, toolName: string, message: string): string {
  state.unknownToolCalls += 1;
  if (state.unknownToolCalls > UNKNOWN_TOOL_RETRIES) {
    throw new ToolRetriesExceededError({ toolName, retries: UNKNOWN_TOOL_RETRIES, lastProblem: message });
  }
  return message;
}
