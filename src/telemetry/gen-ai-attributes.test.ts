import { describe, expect, it } from "vitest";
import { parseAnthropicResponse } from "../models/providers/anthropic-response.js";
import { convertUsage as geminiUsage } from "../models/providers/gemini-response.js";
import { parseChatCompletion } from "../models/providers/openai-chat-response.js";
import { usageAttributes } from "./gen-ai-attributes.js";

describe("usageAttributes: cache tokens as the GenAI conventions name them", () => {
  it("Anthropic: reads and writes, the input count being the whole prompt", () => {
    const response = parseAnthropicResponse(
      {
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: "Hi." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 20, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000, output_tokens: 5 },
      },
      undefined,
    );
    expect(usageAttributes(response.usage)).toEqual({
      "gen_ai.usage.input_tokens": 4320,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.usage.cache_read.input_tokens": 4000,
      "gen_ai.usage.cache_creation.input_tokens": 300,
    });
  });

  it("OpenAI and Gemini: reads only (they report no cache writes)", () => {
    const chat = parseChatCompletion("openai-chat", {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_741_570_283,
      model: "gpt-4o-2024-08-06",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi." }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 2006,
        completion_tokens: 3,
        total_tokens: 2009,
        prompt_tokens_details: { cached_tokens: 1920 },
      },
    });
    expect(usageAttributes(chat.usage)).toEqual({
      "gen_ai.usage.input_tokens": 2006,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.usage.cache_read.input_tokens": 1920,
    });
    const gemini = geminiUsage({
      promptTokenCount: 3000,
      candidatesTokenCount: 4,
      totalTokenCount: 3004,
      cachedContentTokenCount: 2048,
    });
    expect(usageAttributes(gemini)).toEqual({
      "gen_ai.usage.input_tokens": 3000,
      "gen_ai.usage.output_tokens": 4,
      "gen_ai.usage.cache_read.input_tokens": 2048,
    });
  });
});
