import { NousError } from "../errors/nous-error.js";
import { AllModelsFailedError, type ProviderError } from "../errors/provider-error.js";
import { DefinitionError } from "../errors/user-errors.js";
import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  modelName,
} from "./model.js";

/** The provider name of a `withFallback` chain; its model id is its models' names joined by commas. */
export const FALLBACK_PROVIDER = "fallback";

/**
 * The first model of a fallback chain, from the chain's model id (`"openai:a,groq:b"` → `"openai:a"`).
 *
 * @example
 * firstOfChain(withFallback([a, b]).modelId); // modelName(a)
 */
export function firstOfChain(chainModelId: string): string {
  return chainModelId.split(",")[0] ?? "";
}

/**
 * A model that tries each of `models` in turn, moving on only when one fails with a provider error
 * (HTTP failure, network, malformed or truncated answer). Anything else — invalid input, a tool or
 * limit error, the caller's abort — is thrown at once. A stream that fails after some deltas yields
 * `{ type: "stream-reset", reason }` before the next model's deltas. When every model fails, an
 * `AllModelsFailedError` carries each error in order. Each move to the next model is reported to the
 * request's `onNotice` (the runner records it as `model_fallback`). Combine with `withRetry` per model.
 *
 * @example
 * const model = withFallback([
 *   withRetry(resolveModel("openai:gpt-5-mini")),
 *   resolveModel("groq:llama-3.3-70b-versatile"),
 * ]);
 */
export function withFallback(models: readonly Model[]): Model {
  const first = models[0];
  if (first === undefined) throw new DefinitionError({ message: "withFallback needs at least one model" });
  const chain = [...models];
  const failed = (errors: ProviderError[]) =>
    new AllModelsFailedError({ provider: FALLBACK_PROVIDER, errors, status: errors.at(-1)?.status });
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: FALLBACK_PROVIDER,
    modelId: chain.map(modelName).join(","),
    ...(first.wire === undefined ? {} : { wire: first.wire }),
    capabilities: {
      nativeOutput: chain.every((model) => model.capabilities?.nativeOutput === true),
      tools: chain.every((model) => model.capabilities?.tools !== false),
    },
    async doGenerate(request: ModelRequest): Promise<ModelResponse> {
      const errors: ProviderError[] = [];
      for (const [index, model] of chain.entries()) {
        try {
          return await model.doGenerate(request);
        } catch (error) {
          const failure = providerFailure(error, request.signal);
          errors.push(failure);
          await noticeNext(request, chain, index, failure);
        }
      }
      throw failed(errors);
    },
    async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      const errors: ProviderError[] = [];
      for (const [index, model] of chain.entries()) {
        let yielded = false;
        try {
          for await (const part of model.doStream(request)) {
            yielded = part.type !== "stream-reset" || yielded;
            yield part;
          }
          return;
        } catch (error) {
          const failure = providerFailure(error, request.signal);
          errors.push(failure);
          if (yielded) yield { type: "stream-reset", reason: `${modelName(model)} failed: ${failure.message}` };
          await noticeNext(request, chain, index, failure);
        }
      }
      throw failed(errors);
    },
  };
}

/** Tells the request's `onNotice` that the chain moves from model `index` to the next one (if any). */
function noticeNext(
  request: ModelRequest,
  chain: readonly Model[],
  index: number,
  error: ProviderError,
): PromiseLike<void> | undefined | void {
  const next = chain[index + 1];
  if (next === undefined || request.onNotice === undefined) return;
  const from = modelName(chain[index] as Model);
  return request.onNotice({
    type: "fallback",
    from,
    to: modelName(next),
    ...(next.wire ? { wire: next.wire } : {}),
    error,
  });
}

/** The error when the chain may move on; otherwise rethrows (the caller's abort first). */
function providerFailure(error: unknown, signal: AbortSignal | undefined): ProviderError {
  if (signal?.aborted) throw signal.reason;
  if (NousError.isInstance(error) && error.fault === "provider") return error as ProviderError;
  throw error;
}
