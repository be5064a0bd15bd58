import { describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { UserError } from "../../errors/nous-error.js";
import { DefinitionError, ToolNameConflictError } from "../../errors/user-errors.js";
import { tool } from "../../tools/tool.js";
import type { Model, ModelRequest } from "../model.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import type { DialectFixture } from "./test-support/dialect-fixture.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";
import { suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver } from "./test-support/wire-fetch.js";

/** How each dialect writes a provider-defined tool, and how a tool's name is read back from the body. */
interface Case {
  fixture: DialectFixture;
  /** The key of `providerOptions` (the provider's name). */
  provider: string;
  /** A hosted tool with no function name, as the vendor documents it. */
  hosted: Record<string, unknown>;
  /** A provider-defined tool named `name` (conflicts when it is a function tool's name). */
  named(name: string): Record<string, unknown>;
  /** The names in the body's tools, hosted tools as `<hosted>`, in order. */
  names(tools: unknown): string[];
}

const cases: Case[] = [
  {
    fixture: openAIResponsesFixture,
    provider: "openai",
    hosted: { type: "web_search" },
    named: (name) => ({ type: "custom", name, description: "free-form input" }),
    names: (tools) => (tools as { name?: string }[]).map((entry) => entry.name ?? "<hosted>"),
  },
  {
    fixture: openAIChatFixture,
    provider: "openai-chat",
    hosted: { type: "browser_search" },
    named: (name) => ({ type: "function", function: { name, parameters: { type: "object" } } }),
    names: (tools) => (tools as { function?: { name: string } }[]).map((entry) => entry.function?.name ?? "<hosted>"),
  },
  {
    fixture: anthropicFixture,
    provider: "anthropic",
    hosted: { type: "code_execution_20250825" },
    named: (name) => ({ type: "web_search_20250305", name, max_uses: 3 }),
    names: (tools) => (tools as { name?: string }[]).map((entry) => entry.name ?? "<hosted>"),
  },
  {
    fixture: geminiFixture,
    provider: "gemini",
    hosted: { googleSearch: {} },
    named: (name) => ({ functionDeclarations: [{ name, description: "extra" }] }),
    names: (tools) =>
      (tools as { functionDeclarations?: { name: string }[] }[]).flatMap(
        (entry) => entry.functionDeclarations?.map((declaration) => declaration.name) ?? ["<hosted>"],
      ),
  },
];

function modelFor(fixture: DialectFixture) {
  const wire = createWireFetch(() => deliver(fixture.reply("text", false)));
  const model: Model = fixture.createModel({ baseURL: "http://wire.invalid", apiKey: "sk-key", fetch: wire.fetch });
  return { wire, model };
}

function withTools(provider: string, tools: unknown, base: ModelRequest = suiteRequest("text")): ModelRequest {
  return { ...base, settings: { ...base.settings, providerOptions: { [provider]: { tools } } } };
}

for (const entry of cases) {
  describe(`${entry.provider}: providerOptions tools are added to the function tools`, () => {
    it("both reach the request body, function tools first", async () => {
      const { wire, model } = modelFor(entry.fixture);
      await model.doGenerate(withTools(entry.provider, [entry.hosted, entry.named("lookup_docs")]));
      const body = wire.requests[0]?.body as { tools: unknown };
      expect(entry.names(body.tools)).toEqual(["get_weather", "get_time", "<hosted>", "lookup_docs"]);
    });

    it("provider tools alone are sent when the agent has no function tools", async () => {
      const { wire, model } = modelFor(entry.fixture);
      await model.doGenerate(withTools(entry.provider, [entry.hosted], { ...suiteRequest("text"), tools: [] }));
      expect(entry.names((wire.requests[0]?.body as { tools: unknown }).tools)).toEqual(["<hosted>"]);
    });

    it("a provider tool named like a function tool, or like another provider tool, is a ToolNameConflictError", async () => {
      for (const tools of [[entry.named("get_time")], [entry.named("lookup"), entry.hosted, entry.named("lookup")]]) {
        const { wire, model } = modelFor(entry.fixture);
        const error = await model.doGenerate(withTools(entry.provider, tools)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ToolNameConflictError);
        expect(error).toBeInstanceOf(UserError);
        expect(error).toMatchObject({ code: "tool_name_conflict", fault: "user", provider: entry.provider });
        expect(wire.requests).toHaveLength(0);
      }
    });

    it("a tools option that is not a list is a DefinitionError", async () => {
      const { model } = modelFor(entry.fixture);
      const error = await model.doGenerate(withTools(entry.provider, entry.hosted)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DefinitionError);
    });
  });
}

describe("providerOptions tools in an agent run", () => {
  const getTime = tool({
    name: "get_time",
    description: "Time in a zone",
    input: { type: "object", properties: { zone: { type: "string" } } },
    execute: () => "14:00",
  });

  it("the agent's tools and the web search both reach the Responses API", async () => {
    const { wire, model } = modelFor(openAIResponsesFixture);
    const agent = new Agent({
      model,
      tools: [getTime],
      settings: { providerOptions: { openai: { tools: [{ type: "web_search" }] } } },
    });
    await agent.run("What time is it in Paris, and the news?");
    const body = wire.requests[0]?.body as { tools: { type: string; name?: string }[] };
    expect(body.tools.map((entry) => entry.name ?? entry.type)).toEqual(["get_time", "web_search"]);
  });

  it("a conflicting name fails the run at once: a user error, not retried, no request sent", async () => {
    const { wire, model } = modelFor(anthropicFixture);
    const agent = new Agent({
      model,
      tools: [getTime],
      settings: { providerOptions: { anthropic: { tools: [{ type: "web_search_20250305", name: "get_time" }] } } },
    });
    await expect(agent.run("time?")).rejects.toBeInstanceOf(ToolNameConflictError);
    expect(wire.requests).toHaveLength(0);
  });
});
