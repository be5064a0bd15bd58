import { expect } from "vitest";
import { createGeminiModel } from "../gemini.js";
import {
  type DialectFixture,
  type RecordedRequest,
  type Scenario,
  scenarioExpectations,
  suiteOutputSchema,
  type WireReply,
} from "./dialect-fixture.js";

const MODEL = "gemini-2.5-flash";
const SIGNATURE = "CiQB0e2Kb2HPlSJ3hOdJbSfoJwP1z+Kt3bOv0ZSbXkAMCcMVsdUKdgHR7Ypv";

type Part = Record<string, unknown>;
/** One streamed chunk's parts; the last chunk of a scenario carries the finishReason and full usage. */
type Chunks = readonly (readonly Part[])[];

/** Server-sent events as `streamGenerateContent?alt=sse` frames them: one `data:` line per chunk, CRLF-separated. */
export function geminiSse(chunks: readonly unknown[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("");
}

const scenarioChunks: Record<Scenario, Chunks> = {
  text: [[{ text: "Hello, w" }], [{ text: "örld 👋" }], [{ text: " — ünïcode" }]],
  "tool-call": [[{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SIGNATURE }]],
  "parallel-tool-calls": [
    [{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SIGNATURE }],
    [{ functionCall: { name: "get_time", args: { zone: "Asia/Tōkyō" } } }],
  ],
  reasoning: [
    [{ text: "Let me think ", thought: true }],
    [{ text: "step by step.", thought: true }],
    [{ text: "4" }],
    [{ text: "2", thoughtSignature: SIGNATURE }],
  ],
  "structured-output": [[{ text: '{"answer":4' }], [{ text: '2,"unit":"µ' }], [{ text: 'm"}' }]],
};

/** The non-streaming answer's parts: runs of text joined, as the API returns them in one piece. */
const scenarioParts: Record<Scenario, readonly Part[]> = {
  text: [{ text: scenarioExpectations.text.text }],
  "tool-call": scenarioChunks["tool-call"].flat(),
  "parallel-tool-calls": scenarioChunks["parallel-tool-calls"].flat(),
  reasoning: [
    { text: scenarioExpectations.reasoning.reasoning, thought: true },
    { text: "42", thoughtSignature: SIGNATURE },
  ],
  "structured-output": [{ text: scenarioExpectations["structured-output"].text }],
};

function usageMetadata(scenario: Scenario, final: boolean): Record<string, unknown> {
  const { inputTokens, outputTokens } = scenarioExpectations[scenario].usage;
  const promptTokensDetails = [{ modality: "TEXT", tokenCount: inputTokens }];
  if (!final) return { promptTokenCount: inputTokens, totalTokenCount: inputTokens, promptTokensDetails };
  const thoughts = scenario === "reasoning" ? 28 : 0;
  const metadata: Record<string, unknown> = {
    promptTokenCount: inputTokens,
    candidatesTokenCount: outputTokens - thoughts,
    totalTokenCount: inputTokens + outputTokens,
    promptTokensDetails,
  };
  if (thoughts > 0) metadata.thoughtsTokenCount = thoughts;
  return metadata;
}

function response(scenario: Scenario, parts: readonly Part[], final: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (final) candidate.finishReason = "STOP";
  candidate.index = 0;
  return {
    candidates: [candidate],
    usageMetadata: usageMetadata(scenario, final),
    modelVersion: MODEL,
    responseId: "mAitaLmkHPPlz7IPvtfUqQ4",
  };
}

function reply(scenario: Scenario, stream: boolean): WireReply {
  if (!stream) {
    return {
      status: 200,
      headers: { "content-type": "application/json; charset=UTF-8" },
      body: JSON.stringify(response(scenario, scenarioParts[scenario], true)),
    };
  }
  const chunks = scenarioChunks[scenario];
  return {
    status: 200,
    headers: { "content-type": "text/event-stream", "content-disposition": "attachment" },
    body: geminiSse(chunks.map((parts, index) => response(scenario, parts, index === chunks.length - 1))),
  };
}

/** The google.rpc status and message the Gemini API documents for each HTTP status. */
const errorStatuses: Record<number, [status: string, message: string]> = {
  400: ["INVALID_ARGUMENT", "Request contains an invalid argument."],
  401: ["UNAUTHENTICATED", "Request had invalid authentication credentials."],
  403: ["PERMISSION_DENIED", "The caller does not have permission"],
  404: ["NOT_FOUND", "models/gemini-0.0-none is not found for API version v1beta."],
  408: ["DEADLINE_EXCEEDED", "Request timed out before a response was produced."],
  409: ["ABORTED", "The operation was aborted because of a conflict."],
  413: ["INVALID_ARGUMENT", "Request payload size exceeds the limit: 20971520 bytes."],
  429: ["RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."],
  500: [
    "INTERNAL",
    "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  ],
  502: ["UNAVAILABLE", "The service is currently unavailable."],
  503: ["UNAVAILABLE", "The model is overloaded. Please try again later."],
  504: ["DEADLINE_EXCEEDED", "Deadline expired before operation could complete."],
  529: ["UNAVAILABLE", "The model is overloaded. Please try again later."],
};

/** The Gemini dialect for the shared provider suite. */
export const geminiFixture: DialectFixture = {
  name: "gemini",
  scenarios: ["text", "tool-call", "parallel-tool-calls", "reasoning", "structured-output"],
  createModel: ({ baseURL, apiKey, fetch }) =>
    createGeminiModel(MODEL, fetch === undefined ? { baseURL, apiKey } : { baseURL, apiKey, fetch }),
  reply,
  errorReply(status, headers) {
    const [rpcStatus, message] = errorStatuses[status] ?? ["UNKNOWN", "Unknown error."];
    return {
      status,
      headers: { "content-type": "application/json; charset=UTF-8", ...headers },
      body: JSON.stringify({ error: { code: status, message, status: rpcStatus } }, null, 2),
    };
  },
  checkRequest(scenario: Scenario, request: RecordedRequest) {
    expect(request.method).toBe("POST");
    expect([
      `/v1beta/models/${MODEL}:generateContent`,
      `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    ]).toContain(request.path);
    expect(request.headers["x-goog-api-key"]).toBe("sk-suite-key");
    expect(request.headers.authorization).toBeUndefined();
    const body = request.body as Record<string, unknown>;
    expect(body.systemInstruction).toEqual({ parts: [{ text: "You are the provider test suite." }] });
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: `Scenario: ${scenario}` }] }]);
    const [tools] = body.tools as { functionDeclarations: { name: string; parametersJsonSchema: unknown }[] }[];
    expect(tools?.functionDeclarations.map((declaration) => declaration.name)).toEqual(["get_weather", "get_time"]);
    expect(tools?.functionDeclarations[0]?.parametersJsonSchema).toMatchObject({ type: "object", required: ["city"] });
    const config = body.generationConfig as Record<string, unknown>;
    expect(config.maxOutputTokens).toBe(1024);
    if (scenario === "structured-output") {
      expect(config.responseMimeType).toBe("application/json");
      expect(config.responseJsonSchema).toEqual(suiteOutputSchema);
    } else {
      expect(config.responseMimeType).toBeUndefined();
    }
  },
};
