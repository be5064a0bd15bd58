import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResponsePart } from "../model.js";
import { createAnthropicModel } from "./anthropic.js";
import { anthropicTools } from "./anthropic-tools.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import { openaiTools } from "./openai-tools.js";
import { serverToolsJson, serverToolsSse } from "./test-support/anthropic-server-tools.fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { nativeToolsJson, nativeToolsSse } from "./test-support/openai-native-tools.fixture.js";
import { checkStreamCoherent, collectStream, suiteRequest } from "./test-support/suite-support.js";

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

/** Small writes, so the SSE events reach the client cut at many places. */
const chunkSizes = Array.from({ length: 400 }, (_, index) => 11 + (index % 7));

describe("provider tools over a loopback HTTP server", () => {
  it("OpenAI: hosted tools go out in the body; the streamed answer in small writes equals the JSON one", async () => {
    server.reset();
    server.enqueue(nativeToolsJson(), { reply: nativeToolsSse(), chunkSizes });
    const model = createOpenAIResponsesModel("gpt-5-mini", { apiKey: "k", baseURL: `${server.url}/v1` });
    const request = {
      ...suiteRequest("text"),
      providerTools: [openaiTools.webSearch(), openaiTools.codeInterpreter()],
    };
    const json = await model.doGenerate(request);
    const { parts, error } = await collectStream(model.doStream(request));
    expect(error).toBeUndefined();
    expect(checkStreamCoherent(parts).content).toEqual(json.content);
    expect(json.content.filter((part) => part.type !== "text" && part.type !== "tool-call")).toHaveLength(8);
    expect(
      server.requests.map((recorded) =>
        (recorded.body as { tools: { type: string }[] }).tools
          .map((entry) => entry.type)
          .filter((type) => type !== "function"),
      ),
    ).toEqual([
      ["web_search", "code_interpreter"],
      ["web_search", "code_interpreter"],
    ]);
  });

  it("Anthropic: the server tool and its beta header go out; the streamed answer in small writes equals the JSON one", async () => {
    server.reset();
    server.enqueue(serverToolsJson(), { reply: serverToolsSse(), chunkSizes });
    const model = createAnthropicModel("claude-sonnet-4-5", { apiKey: "k", baseURL: server.url });
    const request = {
      ...suiteRequest("text"),
      providerTools: [anthropicTools.webSearch({ maxUses: 1 }), anthropicTools.codeExecution()],
    };
    const json = await model.doGenerate(request);
    const { parts, error } = await collectStream(model.doStream(request));
    expect(error).toBeUndefined();
    // The function call's argument text keeps the stream's own spacing; everything else is equal.
    const withoutCalls = (content: readonly ResponsePart[]) => content.filter((part) => part.type !== "tool-call");
    expect(withoutCalls(checkStreamCoherent(parts).content)).toEqual(withoutCalls(json.content));
    expect(json.content.map((part) => part.type)).toContain("provider-tool-result");
    expect(server.requests.map((recorded) => recorded.headers["anthropic-beta"])).toEqual([
      "code-execution-2025-08-25",
      "code-execution-2025-08-25",
    ]);
  });
});
