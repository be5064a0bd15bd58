import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { RateLimitError } from "../errors/provider-error.js";
import { withFallback } from "../models/fallback.js";
import { MODEL_SPECIFICATION_VERSION, type Model, type ModelResponse } from "../models/model.js";
import { PRICE_SOURCE } from "./price-source.js";

const usage = { inputTokens: 1000, outputTokens: 100 };

/** A model of `provider` that answers (reporting `reportedId`, when given) or fails with a rate limit. */
function model(provider: string, modelId: string, fails: boolean, reportedId?: string): Model {
  const answer: ModelResponse = {
    content: [{ type: "text", text: `${provider}:${modelId}` }],
    usage,
    finishReason: "stop",
    ...(reportedId === undefined ? {} : { modelId: reportedId }),
  };
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider,
    modelId,
    async doGenerate() {
      if (fails) throw new RateLimitError({ provider, message: "busy", status: 429 });
      return answer;
    },
    async *doStream() {
      if (fails) throw new RateLimitError({ provider, message: "busy", status: 429 });
      yield { type: "finish", response: answer };
    },
  };
}

const costOf = (log: readonly { type: string; data: unknown }[]) =>
  log.filter((event) => event.type === "model_response").map((event) => (event.data as { cost?: unknown }).cost);

describe("the cost of a fallback chain's response", () => {
  it("is priced by the model the chain moved to, not by the chain's name", async () => {
    const chain = withFallback([model("acme", "big", true), model("acme", "small", false)]);
    const pricing = { "acme:big": { input: 100, output: 100 }, "acme:small": { input: 2, output: 8 } };
    const result = await new Agent({ model: chain, pricing }).run("go");
    // 1000 × $2/M + 100 × $8/M, at the rates of acme:small, the model that answered.
    expect(costOf(result.log)).toEqual([{ source: "custom", usd: 0.0028, inputUsd: 0.002, outputUsd: 0.0008 }]);
    expect(result.cost).toEqual({ usd: 0.0028, partial: false });
  });

  it("by its first model when it did not move, with the id the provider reported", async () => {
    const chain = withFallback([model("openai", "gpt-4o", false, "gpt-4o-2024-08-06"), model("acme", "x", false)]);
    const { log } = await new Agent({ model: chain }).run("go");
    // gpt-4o's list rates from the price data: $2.50/M input, $10/M output.
    expect(costOf(log)).toEqual([
      { source: PRICE_SOURCE, priceModel: "openai:gpt-4o", usd: 0.0035, inputUsd: 0.0025, outputUsd: 0.001 },
    ]);
  });

  it("streamed: the same", async () => {
    const chain = withFallback([model("acme", "big", true), model("acme", "small", false)]);
    const stream = new Agent({ model: chain, pricing: { small: { input: 2, output: 8 } } }).stream("go");
    for await (const _ of stream) void _;
    expect((await stream.result).cost).toEqual({ usd: 0.0028, partial: false });
  });
});
