import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { toolContent } from "../tools/tool-content.js";
import { toUIMessageStream } from "./to-ui-message-stream.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

const chart = tool({
  name: "chart",
  description: "Draw a chart",
  input: z.object({ metric: z.string() }),
  execute: ({ metric }) =>
    toolContent([{ type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" }], { result: `Chart of ${metric}` }),
});

describe("a tool result with content parts in the UI stream", () => {
  it("reaches the page as { result, content }", async () => {
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ id: "c1", name: "chart", args: { metric: "sales" } }] },
        { text: "Done." },
      ]),
      tools: [chart],
    });
    const chunks: UIMessageChunk[] = [];
    const reader = toUIMessageStream(agent.stream("chart sales"), { cursor: false }).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")).toEqual({
      type: "tool-output-available",
      toolCallId: "c1",
      output: { result: "Chart of sales", content: [{ type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" }] },
    });
  });
});
