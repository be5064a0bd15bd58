/**
 * The example's model: deterministic, offline, and as slow as its `gate` says. It answers from the
 * last user message: "weather" calls `get_weather`, "pay" calls `pay_invoice` (which needs approval),
 * "refund" calls the `refund_desk` sub-agent, whose `issue_refund` needs approval; anything else is echoed; each part of the stream waits on the gate first, so a test can hold the
 * answer mid-way and a human sees it stream.
 */
import {
  type Message,
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ResponsePart,
} from "../../src/index.js";

/** Waits before each streamed part. */
export type Gate = () => Promise<void>;

/** A gate that lets parts through one at a time as a test releases them. */
export class ManualGate {
  #allowed = 0;
  #waiters: (() => void)[] = [];
  #open = false;

  /** Lets `count` more parts through. */
  release(count = 1): void {
    this.#allowed += count;
    this.#wake();
  }

  /** Lets every part through from now on. */
  open(): void {
    this.#open = true;
    this.#wake();
  }

  /** Holds every part again (until `release` or `open`). */
  close(): void {
    this.#open = false;
    this.#allowed = 0;
  }

  readonly wait: Gate = () =>
    new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
      this.#wake();
    });

  #wake(): void {
    while (this.#waiters.length > 0 && (this.#open || this.#allowed > 0)) {
      if (!this.#open) this.#allowed--;
      this.#waiters.shift()?.();
    }
  }
}

/** The text the demo model echoes for a user message that names no tool. */
export function echoText(userText: string): string {
  return `You said: ${userText}. This answer streams in word by word.`;
}

function lastUserText(messages: readonly Message[]): string {
  const user = messages.findLast((message) => message.role === "user");
  if (user === undefined) return "";
  return typeof user.content === "string"
    ? user.content
    : user.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** What the model answers to a request: text and tool calls. */
export function demoAnswer(request: ModelRequest): ResponsePart[] {
  const last = request.messages.at(-1);
  const text = lastUserText(request.messages);
  if (last?.role === "tool") {
    if (last.toolName === "get_weather") return [{ type: "text", text: "It is 21 degrees and sunny in Paris." }];
    if (last.toolName === "issue_refund")
      return [{ type: "text", text: last.isError ? "No refund." : "Refunded INV-7." }];
    if (last.toolName === "refund_desk") return [{ type: "text", text: "The refund desk says: Refunded INV-7." }];
    return [{ type: "text", text: last.isError ? "The invoice was not paid." : "Invoice INV-7 is paid." }];
  }
  if (/weather/i.test(text)) {
    return [
      { type: "text", text: "Let me look that up." },
      { type: "tool-call", toolCallId: "call-weather", toolName: "get_weather", argsText: '{"city":"Paris"}' },
    ];
  }
  if (/refund/i.test(text)) {
    // The chat's agent hands refunds to its refund desk (a sub-agent), which issues them.
    const delegate = request.tools.some((tool) => tool.name === "refund_desk");
    const call = delegate
      ? { toolCallId: "call-desk", toolName: "refund_desk", argsText: '{"prompt":"refund INV-7"}' }
      : { toolCallId: "call-refund", toolName: "issue_refund", argsText: '{"invoice":"INV-7"}' };
    return [{ type: "tool-call", ...call }];
  }
  if (/pay/i.test(text)) {
    return [
      {
        type: "tool-call",
        toolCallId: "call-pay",
        toolName: "pay_invoice",
        argsText: '{"invoice":"INV-7","amount":120}',
      },
    ];
  }
  return [{ type: "text", text: echoText(text) }];
}

/** Text split into words, each with the space after it. */
function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

export class DemoModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = "demo";
  readonly modelId = "gated";
  readonly capabilities = { nativeOutput: false, tools: true };
  readonly #gate: Gate;

  constructor(gate: Gate = () => new Promise((resolve) => setTimeout(resolve, 60))) {
    this.#gate = gate;
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    return response(demoAnswer(request));
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const content = demoAnswer(request);
    for (const part of content) {
      if (part.type === "tool-call") {
        await this.#gate();
        yield { type: "tool-call-start", toolCallId: part.toolCallId, toolName: part.toolName };
        await this.#gate();
        yield { type: "tool-call-delta", toolCallId: part.toolCallId, argsTextDelta: part.argsText };
        yield { type: "tool-call-end", toolCallId: part.toolCallId };
      } else if (part.type === "text" || part.type === "reasoning") {
        for (const word of words(part.text)) {
          await this.#gate();
          yield { type: "text-delta", text: word };
        }
      }
    }
    yield { type: "finish", response: response(content) };
  }
}

function response(content: ResponsePart[]): ModelResponse {
  const calls = content.some((part) => part.type === "tool-call");
  return { content, usage: { inputTokens: 10, outputTokens: 10 }, finishReason: calls ? "tool-calls" : "stop" };
}
