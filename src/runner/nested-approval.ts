import { ApprovalPendingError } from "../errors/run-errors.js";
import type { RecordedApprovalDecision } from "../session/approval-state.js";
import type { RunContext } from "../session/run-context.js";
import type { NestedCall } from "../session/run-seam.js";
import { sameJson } from "./nested-record.js";
import type { RunState } from "./run-state.js";
import { toDecision } from "./tool-preparation.js";

/**
 * The approval of a nested call, recorded as a top-level one is: `approval_requested` (naming the
 * parent, with the caller's arguments beside the checked ones when they differ), then the approval
 * handler's answer as `approval_decided`. Without a handler the request is committed and the run
 * pauses (`ApprovalPendingError`, thrown into the calling tool and rethrown when it returns): the
 * parent call stays open, and once the request is decided (`decideApproval`, from any process) a
 * resume runs the parent again — its earlier nested calls replay from the log, and this one finds
 * the recorded decision here. A handler that throws stops the run with its error.
 */
export async function decideNested<D extends object, O>(
  state: RunState<D, O>,
  call: NestedCall,
  toolName: string,
  args: unknown,
  context: RunContext<D>,
): Promise<RecordedApprovalDecision> {
  const recorded = state.resume?.decided.get(call.toolCallId);
  if (recorded !== undefined) return recorded;
  const request = { toolCallId: call.toolCallId, toolName, args, parentToolCallId: call.parentToolCallId };
  if (!state.resume?.pending.has(call.toolCallId)) {
    const requestedArgs = sameJson(call.args, args) ? {} : { requestedArgs: call.args };
    state.record("approval_requested", { ...request, ...requestedArgs });
  }
  const handler = state.config.options.approvalHandler;
  if (handler === undefined) {
    try {
      await state.commit();
    } catch (error) {
      throw state.halt(error);
    }
    throw state.halt(new ApprovalPendingError([request]));
  }
  let answer: RecordedApprovalDecision;
  try {
    answer = toDecision(await handler(request, context));
  } catch (error) {
    throw state.halt(error);
  }
  state.record("approval_decided", { toolCallId: call.toolCallId, ...answer });
  return answer;
}
