import {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  OverloadedError,
  type ProviderError,
  ProviderServerError,
  RateLimitError,
} from "../../../errors/provider-error.js";
import type { Message } from "../../../session/messages.js";
import type { ModelRequest, ModelResponse, ModelStreamPart } from "../../model.js";
import { type Scenario, type ScenarioExpectation, suiteOutputSchema, suiteTools } from "./dialect-fixture.js";

/** The HTTP statuses every dialect's error mapping is tested on. */
export const suiteErrorStatuses = [400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529] as const;

type ProviderErrorClass = abstract new (...args: never[]) => ProviderError;

/** The typed errors each status may become, and whether the error is retryable. */
export const expectedErrors: Record<
  (typeof suiteErrorStatuses)[number],
  { classes: readonly ProviderErrorClass[]; retryable: boolean }
> = {
  400: { classes: [BadRequestError], retryable: false },
  401: { classes: [AuthenticationError], retryable: false },
  403: { classes: [AuthenticationError], retryable: false },
  404: { classes: [BadRequestError], retryable: false },
  408: { classes: [RateLimitError], retryable: true },
  409: { classes: [RateLimitError], retryable: true },
  413: { classes: [BadRequestError, ContextTooLongError], retryable: false },
  429: { classes: [RateLimitError], retryable: true },
  500: { classes: [ProviderServerError], retryable: true },
  502: { classes: [ProviderServerError], retryable: true },
  503: { classes: [ProviderServerError, OverloadedError], retryable: true },
  504: { classes: [ProviderServerError], retryable: true },
  529: { classes: [OverloadedError], retryable: true },
};

/** The request the suite sends for a scenario (fixtures may inspect it in `checkRequest`). */
export function suiteRequest(scenario: Scenario, signal?: AbortSignal): ModelRequest {
  return {
    instructions: "You are the provider test suite.",
    messages: [{ role: "user", content: `Scenario: ${scenario}` }],
    tools: suiteTools,
    output:
      scenario === "structured-output"
        ? { type: "json", name: "answer", description: "The answer", schema: suiteOutputSchema }
        : undefined,
    settings: { maxOutputTokens: 1024 },
    signal,
  };
}

/** A history with every message kind: system, multimodal user, assistant tool call, tool result. */
export const suiteHistory: readonly Message[] = [
  { role: "system", content: "Extra system note." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture, and the weather?" },
      { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Let me check." },
      { type: "tool-call", toolCallId: "call_1", toolName: "get_weather", args: { city: "Paris" } },
    ],
  },
  { role: "tool", toolCallId: "call_1", toolName: "get_weather", result: { temp: 21 }, isError: false },
  { role: "user", content: "Thanks!" },
];

/** What a response says, with tool-call ids checked and replaced by their order of appearance. */
export interface NormalizedResult {
  text: string;
  reasoning: string;
  toolCalls: { toolName: string; args: unknown }[];
  finishReason: ModelResponse["finishReason"];
  usage: ScenarioExpectation["usage"];
}

export function normalizeResponse(response: ModelResponse): NormalizedResult {
  const ids = new Set<string>();
  const result: NormalizedResult = {
    text: "",
    reasoning: "",
    toolCalls: [],
    finishReason: response.finishReason,
    usage: { inputTokens: response.usage.inputTokens ?? -1, outputTokens: response.usage.outputTokens ?? -1 },
  };
  for (const part of response.content) {
    switch (part.type) {
      case "text":
        result.text += part.text;
        break;
      case "reasoning":
        result.reasoning += part.text;
        break;
      case "tool-call": {
        if (typeof part.toolCallId !== "string" || part.toolCallId === "") throw new Error("tool call id is empty");
        if (ids.has(part.toolCallId)) throw new Error(`tool call id ${part.toolCallId} is not unique`);
        ids.add(part.toolCallId);
        result.toolCalls.push({ toolName: part.toolName, args: JSON.parse(part.argsText) });
        break;
      }
      case "provider-tool-call":
      case "provider-tool-result":
      case "source":
        break; // compared by the provider-tool tests

      default: {
        const unknownPart: never = part;
        throw new Error(`unknown part ${JSON.stringify(unknownPart)}`);
      }
    }
  }
  return result;
}

/** Reads a whole stream; a throw is captured, never lost. */
export async function collectStream(
  stream: AsyncIterable<ModelStreamPart>,
): Promise<{ parts: ModelStreamPart[]; error?: unknown }> {
  const parts: ModelStreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

/**
 * The stream's parts with tool-call ids replaced by their order of first appearance, so that two
 * readings of the same bytes compare equal even when an adapter generates ids.
 */
export function canonicalParts(parts: readonly ModelStreamPart[]): string {
  const ids = new Map<string, string>();
  const id = (value: string) => {
    if (!ids.has(value)) ids.set(value, `#${ids.size}`);
    return ids.get(value);
  };
  return JSON.stringify(
    parts.map((part) => {
      switch (part.type) {
        case "tool-call-start":
        case "tool-call-delta":
        case "tool-call-end":
          return { ...part, toolCallId: id(part.toolCallId) };
        case "finish":
          return {
            type: "finish",
            response: {
              ...part.response,
              content: part.response.content.map((item) =>
                item.type === "tool-call" ? { ...item, toolCallId: id(item.toolCallId) } : item,
              ),
            },
          };
        case "text-delta":
        case "reasoning-delta":
        case "stream-reset":
          return part;
        default: {
          const unknownPart: never = part;
          return unknownPart;
        }
      }
    }),
  );
}

/**
 * Checks that a completed stream is coherent: exactly one `finish`, last; text and reasoning deltas
 * add up to the final text and reasoning; each tool call was started, fed and ended with the same
 * arguments the final response carries. Returns the final response.
 */
export function checkStreamCoherent(parts: readonly ModelStreamPart[]): ModelResponse {
  const finishes = parts.filter((part) => part.type === "finish");
  if (finishes.length !== 1) throw new Error(`expected exactly one finish part, got ${finishes.length}`);
  const last = parts.at(-1);
  if (last?.type !== "finish") throw new Error("the finish part is not the last part");
  const response = last.response;
  const textOf = (type: "text" | "reasoning") =>
    response.content.map((part) => (part.type === type ? part.text : "")).join("");
  const deltas = (type: "text-delta" | "reasoning-delta") =>
    parts.map((part) => (part.type === type ? part.text : "")).join("");
  if (deltas("text-delta") !== textOf("text")) throw new Error("text deltas do not add up to the final text");
  if (deltas("reasoning-delta") !== textOf("reasoning")) throw new Error("reasoning deltas do not add up");
  for (const call of response.content) {
    if (call.type !== "tool-call") continue;
    const start = parts.find((part) => part.type === "tool-call-start" && part.toolCallId === call.toolCallId);
    if (start?.type !== "tool-call-start" || start.toolName !== call.toolName) {
      throw new Error(`tool call ${call.toolCallId} has no matching tool-call-start`);
    }
    const args = parts
      .map((part) => (part.type === "tool-call-delta" && part.toolCallId === call.toolCallId ? part.argsTextDelta : ""))
      .join("");
    if (args !== call.argsText) throw new Error(`tool call ${call.toolCallId}: deltas do not add up to its arguments`);
    if (!parts.some((part) => part.type === "tool-call-end" && part.toolCallId === call.toolCallId)) {
      throw new Error(`tool call ${call.toolCallId} has no tool-call-end`);
    }
  }
  return response;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same mutations on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const mutations = [
  "drop-byte",
  "drop-range",
  "duplicate-range",
  "drop-line",
  "duplicate-line",
  "swap-lines",
  "truncate",
  "corrupt-byte",
  "insert-garbage",
] as const;

/** Applies one to three random mutations (byte and line level) to a body. */
export function mutate(bytes: Uint8Array, random: () => number): { bytes: Uint8Array; applied: string[] } {
  let current = Buffer.from(bytes);
  const applied: string[] = [];
  const pick = (n: number) => Math.floor(random() * n);
  const count = 1 + pick(3);
  for (let step = 0; step < count; step++) {
    const kind = mutations[pick(mutations.length)] ?? "truncate";
    const at = pick(current.length + 1);
    const length = 1 + pick(40);
    const lines = current.toString("latin1").split("\n");
    const line = pick(lines.length);
    applied.push(`${kind}@${at}`);
    switch (kind) {
      case "drop-byte":
        current = Buffer.concat([current.subarray(0, at), current.subarray(at + 1)]);
        break;
      case "drop-range":
        current = Buffer.concat([current.subarray(0, at), current.subarray(at + length)]);
        break;
      case "duplicate-range":
        current = Buffer.concat([current.subarray(0, at + length), current.subarray(at)]);
        break;
      case "drop-line":
        lines.splice(line, 1);
        current = Buffer.from(lines.join("\n"), "latin1");
        break;
      case "duplicate-line":
        lines.splice(line, 0, lines[line] ?? "");
        current = Buffer.from(lines.join("\n"), "latin1");
        break;
      case "swap-lines": {
        const other = pick(lines.length);
        [lines[line], lines[other]] = [lines[other] ?? "", lines[line] ?? ""];
        current = Buffer.from(lines.join("\n"), "latin1");
        break;
      }
      case "truncate":
        current = current.subarray(0, at);
        break;
      case "corrupt-byte":
        if (current.length > 0) current[Math.min(at, current.length - 1)] = pick(256);
        break;
      case "insert-garbage": {
        const garbage = Buffer.from(Array.from({ length }, () => pick(256)));
        current = Buffer.concat([current.subarray(0, at), garbage, current.subarray(at)]);
        break;
      }
      default: {
        const unknownKind: never = kind;
        throw new Error(`unknown mutation ${String(unknownKind)}`);
      }
    }
  }
  return { bytes: current, applied };
}
