import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import type { AssistantPart, Message } from "../../session/messages.js";
import { tool } from "../../tools/tool.js";
import type { ModelSettings } from "../model.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import type { RecordedRequest } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { createResponsesServer, type ResponsesTurn } from "./test-support/responses-server.js";
import { suiteRequest } from "./test-support/suite-support.js";
import { createWireFetch, deliver } from "./test-support/wire-fetch.js";

const request = (body: Record<string, unknown>): RecordedRequest => ({
  method: "POST",
  path: "/v1/responses",
  headers: {},
  body: { model: "gpt-5-mini", ...body },
});

const reasoningThenCall: ResponsesTurn = {
  reasoning: "The user wants the weather.",
  call: { name: "get_weather", arguments: '{"city":"Paris"}' },
};

describe("the local Responses server enforces the store rule for reasoning items", () => {
  it("refuses a reasoning item id under store: false when the item was never stored (404, not found)", () => {
    const api = createResponsesServer([reasoningThenCall, { text: "ok" }]);
    const first = JSON.parse(api.handle(request({ input: [], store: false })).body) as { output: { id: string }[] };
    const id = first.output[0]?.id;
    const replay = api.handle(request({ store: false, input: [{ type: "reasoning", id, summary: [] }] }));
    expect(replay.status).toBe(404);
    expect(JSON.parse(replay.body)).toMatchObject({ error: { type: "invalid_request_error", param: "input" } });
    expect(api.log.at(-1)?.error).toContain(`Item with id '${id}' not found`);
  });

  it("accepts the id of an item a store: true request kept", () => {
    const api = createResponsesServer([reasoningThenCall, { text: "ok" }]);
    api.handle(request({ input: [], store: true }));
    expect(api.storedItems.has("rs_1")).toBe(true);
    const replay = api.handle(request({ store: true, input: [{ type: "reasoning", id: "rs_1", summary: [] }] }));
    expect(replay.status).toBe(200);
  });

  it("accepts an item with its encrypted content, refuses one whose content is not the one issued for that id", () => {
    const api = createResponsesServer([reasoningThenCall, { text: "ok" }, { text: "ok" }]);
    const first = JSON.parse(
      api.handle(request({ input: [], store: false, include: ["reasoning.encrypted_content"] })).body,
    );
    const item = (first as { output: Record<string, unknown>[] }).output[0] ?? {};
    expect(typeof item.encrypted_content).toBe("string");
    expect(api.handle(request({ store: false, input: [item] })).status).toBe(200);
    const forged = { ...item, id: "rs_other" };
    expect(api.handle(request({ store: false, input: [forged] })).status).toBe(400);
  });

  it("refuses include: reasoning.encrypted_content for a model that does not reason", () => {
    const api = createResponsesServer([{ text: "ok" }]);
    const reply = api.handle(request({ model: "gpt-4.1", input: [], include: ["reasoning.encrypted_content"] }));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { param: "include" } });
  });
});

describe("multi-turn reasoning + tool calls against the local Responses server", () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  const turns: ResponsesTurn[] = [
    reasoningThenCall,
    { reasoning: "Now the time.", call: { name: "get_time", arguments: '{"zone":"Europe/Paris"}' } },
    { reasoning: "I have both.", text: "Sunny, and it is 14:00." },
  ];
  const tools = [
    tool({
      name: "get_weather",
      description: "Weather for a city",
      input: { type: "object", properties: { city: { type: "string" } } },
      execute: () => ({ sky: "sunny" }),
    }),
    tool({
      name: "get_time",
      description: "Time in a zone",
      input: { type: "object", properties: { zone: { type: "string" } } },
      execute: () => "14:00",
    }),
  ];
  const modes: { name: string; settings?: ModelSettings; stored: boolean }[] = [
    { name: "default settings (store: false, encrypted reasoning)", stored: false },
    {
      name: "store: true (reasoning sent back by id)",
      settings: { providerOptions: { openai: { store: true } } },
      stored: true,
    },
  ];

  for (const mode of modes) {
    for (const how of ["run", "stream"] as const) {
      it(`${mode.name}, agent.${how}: three model turns, every request accepted`, async () => {
        const api = createResponsesServer(turns);
        server.setFallback((recorded) => api.handle(recorded));
        const model = createOpenAIResponsesModel("gpt-5-mini", { baseURL: `${server.url}/v1`, apiKey: "sk", env: {} });
        const agent = new Agent({ model, tools, ...(mode.settings === undefined ? {} : { settings: mode.settings }) });
        let output: unknown;
        let messages: readonly Message[] = [];
        if (how === "run") {
          const result = await agent.run("Weather and time in Paris?");
          output = result.output;
          messages = result.messages;
        } else {
          const stream = agent.stream("Weather and time in Paris?");
          for await (const _event of stream);
          ({ output, messages } = await stream.result);
        }
        expect(api.log.map((entry) => entry.error ?? entry.status)).toEqual([200, 200, 200]);
        expect(output).toBe("Sunny, and it is 14:00.");

        const last = api.log[2]?.body as { store: unknown; include?: string[]; input: Record<string, unknown>[] };
        expect(last.store).toBe(mode.stored);
        const replayed = last.input.filter((item) => item.type === "reasoning");
        expect(replayed.map((item) => item.id)).toEqual(["rs_1", "rs_2"]);
        if (mode.stored) {
          expect(last.include).toBeUndefined();
          for (const item of replayed) expect(item.encrypted_content).toBeUndefined();
        } else {
          expect(last.include).toEqual(["reasoning.encrypted_content"]);
          for (const item of replayed) expect(typeof item.encrypted_content).toBe("string");
        }
        // Each reasoning item is sent back right before the call it led to.
        expect(last.input.map((item) => item.type ?? item.role)).toEqual([
          "user",
          "reasoning",
          "function_call",
          "function_call_output",
          "reasoning",
          "function_call",
          "function_call_output",
        ]);
        const reasoning = messages.flatMap((message) =>
          message.role === "assistant" ? message.content.filter((part) => part.type === "reasoning") : [],
        );
        expect(reasoning.map((part) => part.text)).toEqual([
          "The user wants the weather.",
          "Now the time.",
          "I have both.",
        ]);
      });
    }
  }
});

describe("a history recorded in one mode, sent in the other", () => {
  const part = (metadata: Record<string, unknown>): AssistantPart => ({
    type: "reasoning",
    text: "thought",
    providerMetadata: { openai: metadata },
  });
  const history = (metadata: Record<string, unknown>): Message[] => [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: [part(metadata), { type: "tool-call", toolCallId: "call_1", toolName: "get_weather", args: {} }],
    },
    { role: "tool", toolCallId: "call_1", toolName: "get_weather", result: "sunny", isError: false },
  ];
  const bodyFor = async (messages: Message[], settings: ModelSettings, modelId = "gpt-5-mini") => {
    const api = createResponsesServer([{ text: "ok" }]); // a fresh server: it has stored nothing
    const wire = createWireFetch((recorded) => deliver(api.handle(recorded)));
    const model = createOpenAIResponsesModel(modelId, { apiKey: "k", fetch: wire.fetch, env: {} });
    await model.doGenerate({ ...suiteRequest("text"), messages, settings });
    return { body: wire.requests[0]?.body as { input: Record<string, unknown>[]; include?: unknown }, api };
  };

  it("store: false drops a reasoning item that has only an id (it cannot be found), and the request is accepted", async () => {
    for (const metadata of [{ itemId: "rs_9", stored: true }, { itemId: "rs_9" }]) {
      const { body, api } = await bodyFor(history(metadata), {});
      expect(body.input.some((item) => item.type === "reasoning")).toBe(false);
      expect(api.log[0]?.status).toBe(200);
    }
  });

  it("store: true sends a reasoning item with its encrypted content, never a bare id it did not store", async () => {
    const earlier = createResponsesServer([reasoningThenCall]);
    const issued = JSON.parse(
      earlier.handle(request({ input: [], store: false, include: ["reasoning.encrypted_content"] })).body,
    ) as { output: { id: string; encrypted_content: string }[] };
    const { id, encrypted_content } = issued.output[0] ?? { id: "", encrypted_content: "" };
    const stored = { providerOptions: { openai: { store: true } } };
    const encrypted = await bodyFor(history({ itemId: id, encryptedContent: encrypted_content }), stored);
    expect(encrypted.body.input[1]).toEqual({
      type: "reasoning",
      id,
      summary: [{ type: "summary_text", text: "thought" }],
      encrypted_content,
    });
    expect(encrypted.api.log[0]?.status).toBe(200);
    const bare = await bodyFor(history({ itemId: "rs_9" }), stored);
    expect(bare.body.input.some((item) => item.type === "reasoning")).toBe(false);
    expect(bare.api.log[0]?.status).toBe(200);
  });

  it("a model that does not reason is not asked for encrypted content (the API would refuse)", async () => {
    const { body, api } = await bodyFor([{ role: "user", content: "hi" }], {}, "gpt-4.1");
    expect(body.include).toBeUndefined();
    expect(api.log[0]?.status).toBe(200);
    const asked = await bodyFor([{ role: "user", content: "hi" }], {
      providerOptions: { openai: { include: ["file_search_call.results"] } },
    });
    expect(asked.body.include).toEqual(["file_search_call.results", "reasoning.encrypted_content"]);
  });
});
