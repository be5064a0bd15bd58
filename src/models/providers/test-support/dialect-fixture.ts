import type { FinishReason, Model, ModelUsage } from "../../model.js";

/** The behaviours every provider dialect is tested on by the shared suite. */
export type Scenario = "text" | "tool-call" | "parallel-tool-calls" | "reasoning" | "structured-output";

/** One HTTP answer exactly as the vendor's API sends it: JSON, or the whole SSE byte stream. */
export interface WireReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** A request the fake server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * How one dialect (OpenAI chat, OpenAI responses, Anthropic, Gemini) takes part in the shared
 * provider suite: it builds its model against the fake server and supplies the wire bytes.
 */
export interface DialectFixture {
  name: string;
  /** The scenarios this dialect's API can express (for example, no reasoning in plain OpenAI chat). */
  scenarios: readonly Scenario[];
  /**
   * The dialect's model against the fake server. `baseURL` is the server's origin
   * (`http://127.0.0.1:<port>`, no path): add the API's path prefix (such as `/v1`) yourself. When
   * `fetch` is given, pass it on as `ProviderSettings.fetch`: the suite feeds thousands of byte-level
   * cases through an in-memory fetch instead of sockets.
   */
  createModel(options: { baseURL: string; apiKey: string; fetch?: typeof fetch }): Model;
  /** The vendor's documented reply for a scenario, streaming (SSE) or not (JSON). */
  reply(scenario: Scenario, stream: boolean): WireReply;
  /** The vendor's documented error body for an HTTP status (400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529). */
  errorReply(status: number, headers?: Record<string, string>): WireReply;
  /** Dialect-specific checks of what the model sent (path, auth header, tools, schema, stream flag). */
  checkRequest?(scenario: Scenario, request: RecordedRequest): void;
}

export interface ExpectedToolCall {
  toolName: string;
  /** Compared after JSON.parse of the model's `argsText`; ids are checked to be unique non-empty strings. */
  args: unknown;
}

/** The normalized result every dialect must produce for each scenario. */
export interface ScenarioExpectation {
  text: string;
  reasoning: string;
  toolCalls: ExpectedToolCall[];
  finishReason: FinishReason;
  usage: Required<Pick<ModelUsage, "inputTokens" | "outputTokens">>;
}

/** What each scenario's wire reply must say. Text carries multi-byte characters on purpose. */
export const scenarioExpectations: Record<Scenario, ScenarioExpectation> = {
  text: {
    text: "Hello, wörld 👋 — ünïcode",
    reasoning: "",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 11, outputTokens: 7 },
  },
  "tool-call": {
    text: "",
    reasoning: "",
    toolCalls: [{ toolName: "get_weather", args: { city: "Paris" } }],
    finishReason: "tool-calls",
    usage: { inputTokens: 20, outputTokens: 9 },
  },
  "parallel-tool-calls": {
    text: "",
    reasoning: "",
    toolCalls: [
      { toolName: "get_weather", args: { city: "Paris" } },
      { toolName: "get_time", args: { zone: "Asia/Tōkyō" } },
    ],
    finishReason: "tool-calls",
    usage: { inputTokens: 30, outputTokens: 18 },
  },
  reasoning: {
    text: "42",
    reasoning: "Let me think step by step.",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 12, outputTokens: 40 },
  },
  "structured-output": {
    text: '{"answer":42,"unit":"µm"}',
    reasoning: "",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 15, outputTokens: 8 },
  },
};

/** The tools the suite offers in every request. */
export const suiteTools = [
  {
    name: "get_weather",
    description: "Weather for a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "get_time",
    description: "Time in a zone",
    inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
  },
] as const;

/** The output schema used by the structured-output scenario. */
export const suiteOutputSchema = {
  type: "object",
  properties: { answer: { type: "number" }, unit: { type: "string" } },
  required: ["answer", "unit"],
  additionalProperties: false,
} as const;
