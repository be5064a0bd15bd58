/** Token and call counts of a run or a model response. */
export interface Usage {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic reports them; billed above plain input). */
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly toolCalls: number;
}

export const emptyUsage: Usage = Object.freeze({
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  toolCalls: 0,
});

/** The field-by-field sum of two usages; missing fields count as zero. */
export function addUsage(left: Usage, right: Partial<Usage>): Usage {
  return Object.freeze({
    requests: left.requests + (right.requests ?? 0),
    inputTokens: left.inputTokens + (right.inputTokens ?? 0),
    outputTokens: left.outputTokens + (right.outputTokens ?? 0),
    totalTokens: left.totalTokens + (right.totalTokens ?? 0),
    cachedInputTokens: left.cachedInputTokens + (right.cachedInputTokens ?? 0),
    // Usages recorded before cache writes were counted lack the field.
    cacheWriteTokens: (left.cacheWriteTokens ?? 0) + (right.cacheWriteTokens ?? 0),
    reasoningTokens: left.reasoningTokens + (right.reasoningTokens ?? 0),
    toolCalls: left.toolCalls + (right.toolCalls ?? 0),
  });
}

/** Token counts as a model reports them; any may be missing. */
export interface ReportedTokens {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
}

/** The usage one model response adds to a run: one request and its tokens (total = input + output when not reported). */
export function responseUsage(reported: ReportedTokens): Partial<Usage> {
  const inputTokens = reported.inputTokens ?? 0;
  const outputTokens = reported.outputTokens ?? 0;
  return {
    requests: 1,
    inputTokens,
    outputTokens,
    totalTokens: reported.totalTokens ?? inputTokens + outputTokens,
    cachedInputTokens: reported.cachedInputTokens ?? 0,
    cacheWriteTokens: reported.cacheWriteTokens ?? 0,
    reasoningTokens: reported.reasoningTokens ?? 0,
  };
}
