import type { Message } from "../session/messages.js";
import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from "./model.js";
import { type OfflineRule, type OfflineToolCall, type OfflineToolResult, offlineRules } from "./offline-rules.js";
import { sampleFromSchema } from "./schema-sample.js";
import { type ScriptedResponse, streamResponse, toModelResponse } from "./scripted-response.js";

/** The one line that says the model is offline and how to use a real one. */
export const OFFLINE_NOTICE =
  "Offline model (rule-based, no provider key needed): for a real one set NOUS_MODEL=provider:model with its key (e.g. NOUS_MODEL=openai:gpt-4o-mini and OPENAI_API_KEY) or pass --model provider:model.";

export interface OfflineModelOptions {
  /** What it understands, in answer order (default `offlineRules`). */
  readonly rules?: readonly OfflineRule[];
}

/** The user's latest text, and what happened since: the calls the model made and their results. */
function lastTurn(messages: readonly Message[]): { prompt: string; results: OfflineToolResult[]; called: boolean } {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role !== "user") start--;
  const user = messages[start - 1];
  let prompt = "";
  if (user?.role === "user") {
    prompt =
      typeof user.content === "string"
        ? user.content
        : user.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
  }
  const calls = new Map<string, OfflineToolCall>();
  const results: OfflineToolResult[] = [];
  for (const message of messages.slice(start)) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type !== "tool-call") continue;
        const args = typeof part.args === "object" && part.args !== null ? (part.args as Record<string, unknown>) : {};
        calls.set(part.toolCallId, { name: part.toolName, args });
      }
    } else if (message.role === "tool") {
      const call = calls.get(message.toolCallId) ?? { name: message.toolName, args: {} };
      results.push({ ...call, result: message.result, isError: message.isError });
    }
  }
  return { prompt, results, called: calls.size > 0 };
}

/**
 * A deterministic offline model that understands simple requests: it maps the user's prompt to the
 * agent's tools with a small rule-based parser (arithmetic such as "What is 2^10?" or "12 times 7",
 * the time, todos and reminders with channel and time of day, notes, file listings), runs them, and
 * answers from their results in a sentence. A prompt it does not understand gets one line saying
 * so and how to use a real model. The CLI's built-in assistant uses it when no model is chosen
 * (also `model: "offline"`). For tests that need any tool called, `TestModel` samples arguments.
 *
 * @example
 * const agent = new Agent({ model: new OfflineModel(), tools: [calculate] });
 * (await agent.run("What is 2^10?")).output; // "2^10 = 1024"
 */
export class OfflineModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = "offline";
  readonly modelId: string;
  readonly capabilities: ModelCapabilities = { nativeOutput: true, tools: true };
  readonly #rules: readonly OfflineRule[];

  constructor(options: OfflineModelOptions = {}, modelId = "rules") {
    this.#rules = options.rules ?? offlineRules;
    this.modelId = modelId;
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    // Call ids unique within a session (the history only grows), whatever process answers.
    const response = toModelResponse(this.#respond(request), 0, this.modelId);
    const content = response.content.map((part, index) =>
      part.type === "tool-call" ? { ...part, toolCallId: `call_${request.messages.length}_${index}` } : part,
    );
    return { ...response, content };
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* streamResponse(await this.doGenerate(request));
  }

  #respond(request: ModelRequest): ScriptedResponse {
    const { prompt, results, called } = lastTurn(request.messages);
    const tools = request.tools.filter((tool) => tool.name !== request.outputToolName);
    const plans = this.#rules.flatMap((rule) => {
      const calls = rule.plan(prompt, tools) ?? [];
      return calls.length > 0 ? [{ rule, calls }] : [];
    });
    if (!called && plans.length > 0) {
      return { toolCalls: plans.flatMap(({ calls }) => calls.map((call) => ({ name: call.name, args: call.args }))) };
    }
    const outputTool = request.tools.find((tool) => tool.name === request.outputToolName);
    if (outputTool !== undefined) {
      return { toolCalls: [{ name: outputTool.name, args: sampleFromSchema(outputTool.inputSchema) }] };
    }
    if (request.output !== undefined) return { text: JSON.stringify(sampleFromSchema(request.output.schema)) };
    if (!called)
      return {
        text: this.#notUnderstood(
          prompt,
          tools.map((tool) => tool.name),
        ),
      };
    const sentences: string[] = [];
    let next = 0;
    for (const { rule, calls } of plans) {
      const mine = results.slice(next, next + calls.length);
      next += calls.length;
      if (mine.length === calls.length) sentences.push(rule.answer(mine));
    }
    if (sentences.length === 0) {
      sentences.push(...results.map((result) => `${result.name}: ${JSON.stringify(result.result)}`));
    }
    return { text: sentences.filter((sentence) => sentence !== "").join(" ") };
  }

  #notUnderstood(prompt: string, tools: readonly string[]): string {
    const can = [
      ["calculate", 'arithmetic ("What is 2^10?")'],
      ["current_time", 'the time ("What time is it?")'],
      ["add_todo", 'todos ("Remind me to buy milk")'],
      ["set_reminder", 'reminders ("by SMS in the morning")'],
      ["add_note", 'notes ("Add a note: call Bob", "List my notes")'],
      ["list_files", 'listing files ("List the files in src")'],
    ]
      .filter(([name]) => tools.includes(name as string))
      .map(([, what]) => what);
    const greeting = /^\s*(?:hi|hello|hey)\b[\s!.,]*$/i.test(prompt);
    const head = greeting ? "Hello! I am the offline model." : "I did not understand that offline.";
    const offer = can.length > 0 ? ` I can help with ${can.join(", ")}.` : "";
    return `${head}${offer}\n${OFFLINE_NOTICE}`;
  }
}

/** The factory behind `"offline"` and `"offline:<id>"`. */
export function createOfflineModel(modelId: string): OfflineModel {
  return new OfflineModel({}, modelId || "rules");
}
