import type { DepsOperation } from "../context/operations.js";
import type { FinishReason } from "../models/model.js";
import type { Usage } from "../session/usage.js";
import type { RunResult } from "./types.js";

/**
 * What `agent.stream()` yields, tagged by `type`, in order. The last event is always `run-end`,
 * carrying the same `RunResult` that `agent.run()` resolves to.
 */
export type AgentStreamEvent<O = string, D extends object = Record<string, unknown>> =
  | { readonly type: "run-start"; readonly runId: string }
  | { readonly type: "step-start"; readonly iteration: number }
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | { readonly type: "tool-call-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-call-delta"; readonly toolCallId: string; readonly argsTextDelta: string }
  | { readonly type: "tool-call-end"; readonly toolCallId: string; readonly toolName: string; readonly args: unknown }
  /** The model's stream restarted (a retry or a fallback model): drop the deltas of this step seen so far. */
  | { readonly type: "stream-reset"; readonly reason: string }
  | {
      readonly type: "tool-result";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly result: unknown;
      readonly isError: boolean;
    }
  | {
      readonly type: "context-update";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly operations: readonly DepsOperation[];
    }
  | {
      readonly type: "step-end";
      readonly iteration: number;
      readonly finishReason: FinishReason;
      readonly usage: Usage;
    }
  | { readonly type: "run-end"; readonly result: RunResult<O, D> };
