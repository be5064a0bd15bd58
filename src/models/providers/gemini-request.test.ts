import { describe, expect, it } from "vitest";
import type { AssistantPart } from "../../session/messages.js";
import { isMessagePart, type ModelRequest } from "../model.js";
import { buildGeminiRequest } from "./gemini-request.js";
import { parseGeminiResponse } from "./gemini-response.js";

const tool = {
  name: "get_weather",
  description: "Weather",
  inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} },
};
const build = (request: Partial<ModelRequest>) =>
  buildGeminiRequest({ messages: [], tools: [], settings: {}, ...request });

describe("buildGeminiRequest", () => {
  it("round-trips thought signatures and Gemini call ids; tool results become one user turn of functionResponses", () => {
    let counter = 0;
    const answer = parseGeminiResponse(
      {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                { text: "Planning the calls.", thought: true, thoughtSignature: "sig-thought" },
                { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-call" },
                { functionCall: { id: "gem-2", name: "get_weather", args: { city: "Rome" } } },
              ],
            },
            finishReason: "STOP",
          },
        ],
      },
      () => `generated-${++counter}`,
    );
    expect(answer.finishReason).toBe("tool-calls");
    const assistant = answer.content.filter(isMessagePart).map(
      (part): AssistantPart =>
        part.type === "tool-call"
          ? {
              type: "tool-call",
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              args: JSON.parse(part.argsText),
              providerMetadata: part.providerMetadata,
            }
          : part,
    );
    expect(assistant.map((part) => (part.type === "tool-call" ? part.toolCallId : part.type))).toEqual([
      "reasoning",
      "generated-1",
      "gem-2",
    ]);
    const body = build({
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        { role: "assistant", content: assistant },
        { role: "tool", toolCallId: "generated-1", toolName: "get_weather", result: { temp: 21 }, isError: false },
        { role: "tool", toolCallId: "gem-2", toolName: "get_weather", result: "no data", isError: true },
        { role: "user", content: "Thanks" },
      ],
      tools: [tool],
    });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { text: "Planning the calls.", thought: true, thoughtSignature: "sig-thought" },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-call" },
          { functionCall: { name: "get_weather", args: { city: "Rome" }, id: "gem-2" } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { output: { temp: 21 } } } },
          { functionResponse: { name: "get_weather", response: { error: "no data" }, id: "gem-2" } },
          { text: "Thanks" },
        ],
      },
    ]);
  });

  it("drops reasoning from other providers, keeps a signature on empty text", () => {
    const body = build({
      messages: [
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "theirs", providerMetadata: { anthropic: { signature: "a" } } },
            { type: "text", text: "", providerMetadata: { gemini: { thoughtSignature: "sig" } } },
            { type: "text", text: "" },
          ],
        },
      ],
    });
    expect(body.contents).toEqual([{ role: "model", parts: [{ text: "", thoughtSignature: "sig" }] }]);
  });

  it("sends images and files as inlineData, URLs as fileData", () => {
    const body = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
            { type: "image", data: "data:image/jpeg;base64,/9j/4AAQ", mediaType: "image/png" },
            { type: "file", data: "JVBERi0xLjQ=", mediaType: "application/pdf", filename: "r.pdf" },
            {
              type: "file",
              data: "https://generativelanguage.googleapis.com/v1beta/files/abc",
              mediaType: "video/mp4",
            },
          ],
        },
      ],
    });
    expect(body.contents).toEqual([
      {
        role: "user",
        parts: [
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { inlineData: { mimeType: "image/jpeg", data: "/9j/4AAQ" } },
          { inlineData: { mimeType: "application/pdf", data: "JVBERi0xLjQ=" } },
          {
            fileData: { mimeType: "video/mp4", fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc" },
          },
        ],
      },
    ]);
  });

  it("maps system, tools (parametersJsonSchema without $schema), tool choice, settings and options", () => {
    const body = build({
      instructions: "Be brief.",
      messages: [
        { role: "system", content: "User is in Paris." },
        { role: "user", content: "Hi" },
      ],
      tools: [tool],
      toolChoice: { type: "tool", toolName: "get_weather" },
      output: { type: "json", name: "answer", schema: { type: "object", properties: { a: { type: "number" } } } },
      settings: {
        temperature: 0.1,
        topP: 0.8,
        maxOutputTokens: 256,
        stopSequences: ["END"],
        seed: 7,
        providerOptions: {
          gemini: {
            thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
            safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
          },
        },
      },
    });
    expect(body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "User is in Paris." }] },
      tools: [
        {
          functionDeclarations: [
            { name: "get_weather", description: "Weather", parametersJsonSchema: { type: "object", properties: {} } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      generationConfig: {
        thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
        temperature: 0.1,
        topP: 0.8,
        maxOutputTokens: 256,
        stopSequences: ["END"],
        seed: 7,
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: { a: { type: "number" } } },
      },
    });
    expect(build({ tools: [tool], toolChoice: "none" }).toolConfig).toEqual({
      functionCallingConfig: { mode: "NONE" },
    });
    expect(build({ tools: [tool], toolChoice: "required" }).toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY" },
    });
    expect(build({}).generationConfig).toBeUndefined();
  });
});
