/**
 * What the inspector shows at a recorded model request: the request as sent (resolved from the log by
 * `recordedRequest`), the response that answered it, and the retries, fallbacks and stream resets in
 * between. Also the per-operation deps change at a `context_update`.
 */
import { foldOperations } from "../context/reducer.js";
import type { DepsOperation, SessionEvent } from "../index.js";
import { isEventOf } from "../session/events.js";
import { type RecordedRequest, recordedRequest } from "../session/recorded-request.js";

/** The response that ended a request's attempts. */
export interface RequestAnswer {
  readonly seq: number;
  readonly model: string;
  readonly latencyMs: number;
  readonly finishReason: string;
  readonly responseId?: string;
  readonly requestId?: string;
}

/** A recorded request with its answer (absent when the request failed) and what happened on the way. */
export interface RequestDetail extends RecordedRequest {
  readonly seq: number;
  readonly response: RequestAnswer | undefined;
  /** The `model_retry`, `model_fallback`, `model_stream_reset` and `partial_response` events of this request. */
  readonly notices: readonly SessionEvent[];
}

const NOTICES = new Set(["model_retry", "model_fallback", "model_stream_reset", "partial_response"]);

/**
 * The request at `seq` (a `model_request` or `model_fallback`) with its response and notices.
 *
 * @example
 * requestDetail(await store.read("u42"), 3).request.instructions; // the system text sent
 */
export function requestDetail(events: readonly SessionEvent[], seq: number): RequestDetail {
  const recorded = recordedRequest(events, seq);
  const start = events.indexOf(recorded.event);
  let response: RequestAnswer | undefined;
  const notices: SessionEvent[] = [];
  for (let index = start + 1; index < events.length; index++) {
    const event = events[index] as SessionEvent;
    if (event.type === "model_request") break;
    if (NOTICES.has(event.type)) notices.push(event);
    if (isEventOf(event, "model_response")) {
      const data = event.data;
      response = {
        seq: event.seq,
        model: data.model,
        latencyMs: data.latencyMs,
        finishReason: data.finishReason,
        ...(data.responseId === undefined ? {} : { responseId: data.responseId }),
        ...(data.requestId === undefined ? {} : { requestId: data.requestId }),
      };
      break;
    }
  }
  return { ...recorded, seq, response, notices };
}

/** One operation of a `context_update` and the value at its key before and after it. */
export interface OperationChange {
  readonly op: DepsOperation["op"];
  readonly key: string;
  /** Absent when the key did not exist before. */
  readonly before?: unknown;
  /** Absent when the key does not exist after (a delete). */
  readonly after?: unknown;
  readonly existedBefore: boolean;
  readonly existsAfter: boolean;
}

/**
 * Folds each operation of an update, one at a time, over the deps before it (the library's reducer),
 * recording the old and new value of its key.
 *
 * @example
 * operationChanges({ cart: ["a"] }, [{ op: "append", key: "cart", item: "b" }]);
 * // [{ op: "append", key: "cart", before: ["a"], after: ["a", "b"], existedBefore: true, existsAfter: true }]
 */
export function operationChanges(
  depsBefore: Record<string, unknown>,
  operations: readonly DepsOperation[],
): OperationChange[] {
  const changes: OperationChange[] = [];
  let deps: Record<string, unknown> = depsBefore;
  for (const operation of operations) {
    const existedBefore = Object.hasOwn(deps, operation.key);
    const before = deps[operation.key];
    deps = foldOperations(deps, [operation]) as Record<string, unknown>;
    const existsAfter = Object.hasOwn(deps, operation.key);
    changes.push({
      op: operation.op,
      key: operation.key,
      ...(existedBefore ? { before } : {}),
      ...(existsAfter ? { after: deps[operation.key] } : {}),
      existedBefore,
      existsAfter,
    });
  }
  return changes;
}
