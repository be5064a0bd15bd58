import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { priceResponse } from "./price-response.js";
import { loadedPriceSource, loadPriceSource, PRICE_SOURCE } from "./price-source.js";

const require = createRequire(import.meta.url);

describe("the price source", () => {
  it("names the installed @pydantic/genai-prices, which package.json pins to that exact version", () => {
    // The package's own package.json is not exported: found next to its resolved entry point.
    const entry = require.resolve("@pydantic/genai-prices");
    const installed = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    expect(installed.name).toBe("@pydantic/genai-prices");
    expect(PRICE_SOURCE).toBe(`genai-prices@${installed.version}`);
    const ours = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(ours.dependencies["@pydantic/genai-prices"]).toBe(installed.version);
  });

  it("loads once; models without a price (local servers, test models) never load it", async () => {
    expect(priceResponse("ollama:qwen3:8b", { inputTokens: 10 })).toEqual({ source: PRICE_SOURCE });
    expect(priceResponse("test:test", { inputTokens: 10 })).toEqual({ source: PRICE_SOURCE });
    const first = await loadPriceSource();
    expect(loadPriceSource()).toBe(first);
    expect(loadedPriceSource()).toBe(first);
  });

  it("maps provider names to the price data's: AI SDK providers, xai, dated model ids, unknown models", async () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 };
    // gpt-4o: 2.5 + 10 per million; grok-3: 3 + 15.
    expect((await priceResponse("openai.responses:gpt-4o-2024-08-06", usage))?.usd).toBe(12.5);
    expect((await priceResponse("anthropic.messages:claude-sonnet-4-5", usage))?.priceModel).toBe(
      "anthropic:claude-sonnet-4-5",
    );
    expect(await priceResponse("xai:grok-3", usage)).toMatchObject({ priceModel: "x-ai:grok-3", usd: 18 });
    expect(await priceResponse("openai:no-such-model", usage)).toEqual({ source: PRICE_SOURCE });
    expect(await priceResponse("no-such-provider:gpt-4o", usage)).toEqual({ source: PRICE_SOURCE });
  });

  it("usage the price data rejects (more cached than input tokens) leaves the response unpriced", async () => {
    expect(await priceResponse("openai:gpt-4o", { inputTokens: 10, cachedInputTokens: 50 })).toEqual({
      source: PRICE_SOURCE,
    });
  });
});
