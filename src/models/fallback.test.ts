import { describe, expect, it } from "vitest";
import { NousError } from "../errors/nous-error.js";
import {
  AllModelsFailedError,
  type ProviderError,
  RateLimitError,
  StreamTruncatedError,
} from "../errors/provider-error.js";
import { DefinitionError } from "../errors/user-errors.js";
import { withFallback } from "./fallback.js";
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from "./model.js";

const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [], settings: {} };
const answerOf = (text: string): ModelResponse => ({
  content: [{ type: "text", text }],
  usage: {},
  finishReason: "stop",
});

/** A model that answers its name, or fails with `error` (after two deltas when streaming and `partial`). */
function scripted(name: string, error?: unknown, partial = false) {
  let calls = 0;
  const model: Model & { calls(): number } = {
    specificationVersion: "nous-model-v1",
    provider: "scripted",
    modelId: name,
    calls: () => calls,
    async doGenerate() {
      calls++;
      if (error !== undefined) throw error;
      return answerOf(name);
    },
    async *doStream(): AsyncGenerator<ModelStreamPart> {
      calls++;
      if (error !== undefined) {
        if (partial) {
          yield { type: "text-delta", text: `${name}-a` };
          yield { type: "text-delta", text: `${name}-b` };
        }
        throw error;
      }
      yield { type: "text-delta", text: name };
      yield { type: "finish", response: answerOf(name) };
    },
  };
  return model;
}

const providerError = (name: string): ProviderError =>
  new RateLimitError({ provider: name, message: "busy", status: 429 });

async function collect(model: Model) {
  const parts: ModelStreamPart[] = [];
  for await (const part of model.doStream(request)) parts.push(part);
  return parts;
}

describe("withFallback", () => {
  const size = 3;
  for (let position = 0; position < size; position++) {
    it(`doGenerate: models before position ${position} fail with provider errors → position ${position} answers`, async () => {
      const chain = Array.from({ length: size }, (_, index) =>
        scripted(`m${index}`, index < position ? providerError(`m${index}`) : undefined),
      );
      await expect(withFallback(chain).doGenerate(request)).resolves.toEqual(answerOf(`m${position}`));
      expect(chain.map((model) => model.calls())).toEqual(chain.map((_, index) => (index <= position ? 1 : 0)));
    });

    for (const partial of [false, true]) {
      it(`doStream: failures before ${position} ${partial ? "after deltas → one stream-reset each" : "before any delta → silent"}`, async () => {
        const chain = Array.from({ length: size }, (_, index) =>
          scripted(`m${index}`, index < position ? providerError(`m${index}`) : undefined, partial),
        );
        const parts = await collect(withFallback(chain));
        const expected: ModelStreamPart[] = [];
        for (let index = 0; index < position; index++) {
          if (!partial) continue;
          expected.push({ type: "text-delta", text: `m${index}-a` }, { type: "text-delta", text: `m${index}-b` });
          expected.push({ type: "stream-reset", reason: `scripted:m${index} failed: m${index}: busy` });
        }
        expected.push(
          { type: "text-delta", text: `m${position}` },
          { type: "finish", response: answerOf(`m${position}`) },
        );
        expect(parts).toEqual(expected);
      });
    }

    it(`a non-provider error at position ${position} is thrown at once; later models are not tried`, async () => {
      const notProvider = new TypeError("a bug in a tool");
      const validation = new DefinitionError({ message: "invalid schema" });
      for (const error of [notProvider, validation]) {
        const chain = Array.from({ length: size }, (_, index) =>
          scripted(`m${index}`, index < position ? providerError(`m${index}`) : index === position ? error : undefined),
        );
        await expect(withFallback(chain).doGenerate(request)).rejects.toBe(error);
        expect(chain.at(-1)?.calls()).toBe(position === size - 1 ? 1 : 0);
        await expect(collect(withFallback(chain))).rejects.toBe(error);
      }
      expect(NousError.isInstance(validation)).toBe(true);
    });
  }

  it("all failing → one AllModelsFailedError with every error in order", async () => {
    const errors = [
      providerError("a"),
      new StreamTruncatedError({ provider: "b", message: "cut" }),
      providerError("c"),
    ];
    const chain = errors.map((error, index) => scripted(`m${index}`, error, true));
    const failure = await withFallback(chain)
      .doGenerate(request)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AllModelsFailedError);
    expect(failure).toMatchObject({ code: "all_models_failed", fault: "provider", retryable: true, errors });
    const streamed = await collect(withFallback(chain)).catch((error: unknown) => error);
    expect((streamed as AllModelsFailedError).errors).toEqual(errors);
  });

  it("the caller's abort is never a reason to try the next model", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const first: Model = {
      ...scripted("m0"),
      async doGenerate() {
        controller.abort(reason);
        throw new RateLimitError({ provider: "m0", message: "aborted fetch" });
      },
    };
    const second = scripted("m1");
    await expect(withFallback([first, second]).doGenerate({ ...request, signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(second.calls()).toBe(0);
  });

  it("refuses an empty chain and reports the chain's capabilities", () => {
    expect(() => withFallback([])).toThrow(DefinitionError);
    const model = withFallback([{ ...scripted("a"), capabilities: { nativeOutput: true } }, scripted("b")]);
    expect(model.capabilities?.nativeOutput).toBe(false);
  });
});

describe("withFallback reports each move to the next model to the request's onNotice", () => {
  it.each([false, true])("stream: %s — from, to, the next model's wire and the error", async (stream) => {
    const first = { ...scripted("a", providerError("a"), true), wire: { api: "anthropic", modelId: "a" } };
    const second = { ...scripted("b"), wire: { api: "gemini", modelId: "b" } };
    const notices: unknown[] = [];
    const model = withFallback([first, second]);
    expect(model.wire).toEqual({ api: "anthropic", modelId: "a" });
    const noticed = { ...request, onNotice: (notice: unknown) => void notices.push(notice) };
    if (stream) for await (const _part of model.doStream(noticed));
    else await model.doGenerate(noticed);
    expect(notices).toEqual([
      {
        type: "fallback",
        from: "scripted:a",
        to: "scripted:b",
        wire: { api: "gemini", modelId: "b" },
        error: expect.any(RateLimitError),
      },
    ]);
  });
});
