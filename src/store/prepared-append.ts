import type { SessionEvent } from "../session/events.js";
import type { EncodedEvent } from "./event-encoding.js";
import { checkFence } from "./lease-rules.js";
import { foldLifecycle, isLifecycleType, type LifecycleState } from "./session-status.js";
import { prepareAppend } from "./store-arguments.js";

/** An append checked and encoded, ready for a backend to commit (alone or in a group). */
export interface PreparedAppend {
  readonly sessionId: string;
  readonly expectedLastSeq: number;
  /** The lease token the append is fenced with (checked in the commit's transaction), if any. */
  readonly fence: number | undefined;
  readonly events: readonly EncodedEvent[];
  /** The lifecycle events among them, decoded from their JSON (a snapshot the caller cannot mutate). */
  readonly lifecycleEvents: readonly { readonly type: string; readonly data: unknown }[];
}

/**
 * Checks and encodes an append before anything is written (see `prepareAppend`).
 *
 * @example
 * const prepared = prepareAppendItem("s1", events, { expectedLastSeq: 0 });
 */
export function prepareAppendItem(
  sessionId: string,
  events: readonly SessionEvent[],
  options: { readonly expectedLastSeq: number; readonly fence?: number },
): PreparedAppend {
  const encoded = prepareAppend(sessionId, events, options);
  checkFence(options.fence);
  return {
    sessionId,
    expectedLastSeq: options.expectedLastSeq,
    fence: options.fence,
    events: encoded,
    lifecycleEvents: encoded
      .filter((event) => isLifecycleType(event.type))
      .map((event) => ({ type: event.type, data: JSON.parse(event.data) as unknown })),
  };
}

/**
 * Folds the append's lifecycle events into `state`.
 *
 * @example
 * const next = applyLifecycle(INITIAL_LIFECYCLE, prepareAppendItem("s1", events, { expectedLastSeq: 0 }));
 */
export function applyLifecycle(state: LifecycleState, append: PreparedAppend): LifecycleState {
  let next = state;
  for (const event of append.lifecycleEvents) next = foldLifecycle(next, event);
  return next;
}
