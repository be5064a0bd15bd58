import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { MODEL_SPECIFICATION_VERSION, type Model, type ModelResponse } from "../models/model.js";
import { planSession } from "./span-builder.js";

/** A model whose one answer reports a hosted web search, its result and a cited source. */
const searched: ModelResponse = {
  content: [
    { type: "provider-tool-call", toolCallId: "ws_1", toolName: "web_search", input: { query: "news" } },
    {
      type: "provider-tool-result",
      toolCallId: "ws_1",
      toolName: "web_search",
      result: { status: "completed" },
      isError: false,
      sources: [{ type: "url", url: "https://a.example" }],
    },
    { type: "text", text: "All calm." },
    { type: "source", source: { type: "url", url: "https://a.example" } },
  ],
  usage: {},
  finishReason: "stop",
};
const model: Model = {
  specificationVersion: MODEL_SPECIFICATION_VERSION,
  provider: "fake",
  modelId: "search",
  async doGenerate() {
    return searched;
  },
  async *doStream() {
    yield { type: "text-delta", text: "All calm." };
    yield { type: "finish", response: searched };
  },
};

describe("provider tool events in traces", () => {
  it("are span events of the run, with the tool, the call id and the source counts", async () => {
    const result = await new Agent({ name: "news", model }).run("Any news?");
    expect(result.output).toBe("All calm.");
    const { runs } = planSession("s", result.log);
    const events = runs[0]?.span.events.map((event) => ({ name: event.name, ...event.attributes }));
    expect(events).toEqual([
      expect.objectContaining({
        name: "nous.provider_tool_call",
        "gen_ai.tool.name": "web_search",
        "gen_ai.tool.call.id": "ws_1",
      }),
      expect.objectContaining({ name: "nous.provider_tool_result", "nous.is_error": false, "nous.source_count": 1 }),
      expect.objectContaining({ name: "nous.provider_sources", "nous.source_count": 1 }),
    ]);
    // Bookkeeping: the history sent on holds the text only.
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "All calm." }] });
  });
});
