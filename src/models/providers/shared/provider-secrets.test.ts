import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretPlaceholder } from "../../../redaction/placeholder.js";
import type { Model, ModelRequest } from "../../model.js";
import { createAnthropicModel } from "../anthropic.js";
import { createGeminiModel } from "../gemini.js";
import { createOpenAIChatModel } from "../openai-chat.js";
import { createOpenAIResponsesModel } from "../openai-responses.js";
import { type FakeServer, startFakeServer } from "../test-support/fake-server.js";

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());

const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [], settings: {} };

// Each provider registers its key and extra headers; an error body echoing them is redacted.
const providers: [string, (key: string, baseURL: string) => Model][] = [
  [
    "openai-chat",
    (apiKey, baseURL) =>
      createOpenAIChatModel("m", { apiKey, baseURL: `${baseURL}/v1`, headers: { "x-org": `${apiKey}-org` }, env: {} }),
  ],
  [
    "openai-responses",
    (apiKey, baseURL) =>
      createOpenAIResponsesModel("m", {
        apiKey,
        baseURL: `${baseURL}/v1`,
        headers: { "x-org": `${apiKey}-org` },
        env: {},
      }),
  ],
  [
    "anthropic",
    (apiKey, baseURL) => createAnthropicModel("m", { apiKey, baseURL, headers: { "x-org": `${apiKey}-org` }, env: {} }),
  ],
  [
    "gemini",
    (apiKey, baseURL) => createGeminiModel("m", { apiKey, baseURL, headers: { "x-org": `${apiKey}-org` }, env: {} }),
  ],
];

describe.each(providers)("%s", (name, create) => {
  it("sends the real key and headers, and an error echoing them carries placeholders", async () => {
    const key = `key-of-${name}-0123456789`;
    server.reset();
    server.setFallback({
      status: 401,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: { message: `bad key ${key}, org ${key}-org`, type: "authentication_error" } }),
    });
    const error = (await create(key, server.url)
      .doGenerate(request)
      .catch((caught: unknown) => caught)) as Error;
    const sent = server.requests[0]?.headers ?? {};
    expect(JSON.stringify(sent)).toContain(key);
    expect(sent["x-org"]).toBe(`${key}-org`);
    expect(error.message).toContain(`bad key ${secretPlaceholder(key)}`);
    expect(`${error.message}${error.stack}${JSON.stringify(error)}`).not.toContain(key);
  });
});
