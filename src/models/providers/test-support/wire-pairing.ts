import type { ModelRequest } from "../../model.js";
import { buildAnthropicRequest } from "../anthropic-request.js";
import { buildGeminiRequest } from "../gemini-request.js";
import { toChatBody } from "../openai-chat-request.js";
import { toResponsesBody } from "../openai-responses-request.js";

type Json = Record<string, unknown>;

const records = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/**
 * The tool-pairing and role rules each provider enforces, checked on the body its own request
 * builder makes of `request`: every tool result answers a call made earlier in the same request
 * (in the turn right before it, where the API wants that), every call has its result, and
 * Anthropic's and Gemini's turns alternate, starting with the user. Returns the problems found
 * (empty: every provider would accept the conversation); a request ending in calls still to be
 * answered may leave the last turn's calls open.
 */
export function wirePairingProblems(request: ModelRequest): string[] {
  return [
    ...anthropicProblems(
      buildAnthropicRequest(request, { modelId: "claude-sonnet-4-5", stream: false, structuredOutput: "native" }).body,
    ),
    ...chatProblems(
      toChatBody("gpt-4o", request, { stream: false, maxTokensField: "max_tokens", provider: "openai-chat" }),
    ),
    ...responsesProblems(toResponsesBody("gpt-5-mini", request, { stream: false, provider: "openai" })),
    ...geminiProblems(buildGeminiRequest(request)),
  ];
}

function alternation(api: string, roles: string[], user: string): string[] {
  const problems: string[] = [];
  if (roles.length > 0 && roles[0] !== user) problems.push(`${api}: the first turn is ${roles[0]}, not ${user}`);
  roles.forEach((role, index) => {
    if (index > 0 && roles[index - 1] === role)
      problems.push(`${api}: turns ${index - 1} and ${index} are both ${role}`);
  });
  return problems;
}

/** Pairs calls with results turn by turn: the results of turn k's calls are in turn k + 1, all of them. */
function turnPairs(api: string, turns: { calls: string[]; results: string[] }[]): string[] {
  const problems: string[] = [];
  turns.forEach((turn, index) => {
    const before = index > 0 ? (turns[index - 1] as { calls: string[] }).calls : [];
    for (const result of turn.results) {
      if (!before.includes(result))
        problems.push(`${api}: turn ${index} answers ${result}, not called in the turn before`);
    }
    const next = turns[index + 1];
    if (next === undefined) return;
    for (const call of turn.calls) {
      if (!next.results.includes(call))
        problems.push(`${api}: call ${call} of turn ${index} has no result in the next turn`);
    }
  });
  return problems;
}

function anthropicProblems(body: Json): string[] {
  const messages = records(body.messages);
  const problems = alternation(
    "anthropic",
    messages.map((message) => String(message.role)),
    "user",
  );
  const turns = messages.map((message) => {
    const blocks = records(message.content);
    return {
      calls: blocks.filter((block) => block.type === "tool_use").map((block) => String(block.id)),
      results: blocks.filter((block) => block.type === "tool_result").map((block) => String(block.tool_use_id)),
    };
  });
  return [...problems, ...turnPairs("anthropic", turns)];
}

function geminiProblems(body: Json): string[] {
  const contents = records(body.contents);
  const problems = alternation(
    "gemini",
    contents.map((content) => String(content.role)),
    "user",
  );
  // Gemini pairs by name and count: the nth response of a turn answers the nth call of the turn before.
  const turns = contents.map((content) => {
    const parts = records(content.parts);
    const calls = parts.flatMap((part) => (part.functionCall ? [String((part.functionCall as Json).name)] : []));
    const results = parts.flatMap((part) =>
      part.functionResponse ? [String((part.functionResponse as Json).name)] : [],
    );
    return {
      calls: calls.map((name, index) => `${name}#${index}`),
      results: results.map((name, index) => `${name}#${index}`),
    };
  });
  return [...problems, ...turnPairs("gemini", turns)];
}

function chatProblems(body: Json): string[] {
  const problems: string[] = [];
  const messages = records(body.messages);
  let open: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = String(message.tool_call_id);
      if (!open.includes(id)) problems.push(`openai-chat: message ${index} answers ${id}, not an open call`);
      open = open.filter((call) => call !== id);
      return;
    }
    if (open.length > 0) problems.push(`openai-chat: calls ${open.join(", ")} unanswered before message ${index}`);
    open = message.role === "assistant" ? records(message.tool_calls).map((call) => String(call.id)) : [];
  });
  return problems;
}

function responsesProblems(body: Json): string[] {
  const problems: string[] = [];
  const items = records(body.input);
  const called = new Set<string>();
  const answered = new Set<string>();
  items.forEach((item, index) => {
    if (item.type === "function_call") called.add(String(item.call_id));
    if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!called.has(id)) problems.push(`openai-responses: item ${index} answers ${id}, not called before`);
      answered.add(id);
    }
  });
  const lastCalls = new Set<string>();
  for (let index = items.length - 1; index >= 0 && (items[index] as Json).type === "function_call"; index--) {
    lastCalls.add(String((items[index] as Json).call_id));
  }
  for (const id of called) {
    if (!answered.has(id) && !lastCalls.has(id)) problems.push(`openai-responses: call ${id} has no output`);
  }
  return problems;
}
