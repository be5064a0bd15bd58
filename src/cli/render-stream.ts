import { type AgentStream, type EventDataMap, isLogEvent, type RunCost, type RunResult, type Usage } from "../index.js";
import { type CliIo, formatDuration, paint, terminalText } from "./cli-support.js";

/** A tool call as the CLI reports it. */
export interface ToolCallReport {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly result?: unknown;
  readonly isError?: boolean;
  readonly durationMs?: number;
}

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on stderr (TTY only); `stop` clears its line. */
class Spinner {
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #label = "";
  readonly #io: CliIo;

  constructor(io: CliIo) {
    this.#io = io;
  }

  start(label: string): void {
    this.#label = label;
    if (!this.#io.interactive) return;
    this.#draw();
    this.#timer ??= setInterval(() => this.#draw(), 80);
    this.#timer.unref();
  }

  #draw(): void {
    this.#frame = (this.#frame + 1) % frames.length;
    this.#io.err(`\r\u001b[2K${paint(this.#io).cyan(frames[this.#frame] as string)} ${this.#label}`);
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#io.err("\r\u001b[2K");
  }
}

/** A short one-line JSON preview of a value, safe to print (control characters neutralised). */
export function preview(value: unknown, max = 80): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  text = terminalText(text.replace(/\s+/g, " "));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "2 requests · 3 tool calls · 120 tokens (100 in, 20 out)". */
export function formatUsage(usage: Usage): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return `${plural(usage.requests, "request")} · ${plural(usage.toolCalls, "tool call")} · ${plural(usage.totalTokens, "token")} (${usage.inputTokens} in, ${usage.outputTokens} out)`;
}

/**
 * "cost $0.0123"; "cost $0.0123 + unpriced requests" when some had no known price; "cost unknown"
 * when none had. Six decimals below a cent.
 */
export function formatCost(cost: RunCost): string {
  if (cost.partial && cost.usd === 0) return "cost unknown";
  const usd = `$${cost.usd < 0.01 ? cost.usd.toFixed(6) : cost.usd.toFixed(4)}`;
  return `cost ${usd}${cost.partial ? " + unpriced requests" : ""}`;
}

/**
 * Consumes `agent.stream(...)`: writes text deltas to stdout as they arrive (unless `quiet`), shows
 * each tool call on stderr (with a spinner on a TTY) and its duration, and returns the run result
 * and the tool calls seen. Errors of the run (and a pause for approval) propagate after the spinner
 * is cleared.
 */
export async function renderStream(
  io: CliIo,
  stream: AgentStream<unknown, object>,
  options: { quiet: boolean; toolCalls: ToolCallReport[] },
): Promise<RunResult<unknown, object>> {
  const colors = paint(io);
  const spinner = new Spinner(io);
  const calls = new Map<string, ToolCallReport>();
  const queue: string[] = [];
  let mark = Date.now();
  let midLine = false;
  const lineBreak = () => {
    if (midLine) io.out("\n");
    midLine = false;
  };
  const spinNext = () => {
    const next = queue[0] === undefined ? undefined : calls.get(queue[0]);
    if (next !== undefined) spinner.start(`${terminalText(next.toolName)}(${preview(next.args, 60)})`);
  };
  const toolResult = (data: EventDataMap["tool_result"]) => {
    const now = Date.now();
    const call = calls.get(data.toolCallId);
    const report: ToolCallReport = {
      toolCallId: data.toolCallId,
      toolName: data.toolName,
      args: call?.args,
      result: data.result,
      isError: data.isError,
      durationMs: now - mark,
    };
    mark = now;
    options.toolCalls.push(report);
    queue.splice(queue.indexOf(data.toolCallId) >>> 0, 1);
    if (options.quiet) return;
    spinner.stop();
    const icon = data.isError ? colors.red("✗") : colors.green("✓");
    const name = terminalText(io.interactive ? `${data.toolName}(${preview(call?.args, 60)})` : data.toolName);
    io.err(
      `${icon} ${name} ${colors.dim(formatDuration(report.durationMs ?? 0))} ${colors.dim("→")} ${preview(data.result, 100)}\n`,
    );
    spinNext();
  };
  try {
    for await (const event of stream) {
      if (event.kind === "delta") {
        if (event.type === "text-delta" && !options.quiet && event.text.length > 0) {
          io.out(terminalText(event.text));
          midLine = !event.text.endsWith("\n");
        } else if (event.type === "tool-call-end") {
          calls.set(event.toolCallId, { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
          queue.push(event.toolCallId);
          if (queue.length === 1) mark = Date.now();
          if (!options.quiet) {
            lineBreak();
            if (!io.interactive)
              io.err(`${colors.cyan("→")} ${terminalText(event.toolName)}(${preview(event.args, 200)})\n`);
            else if (queue.length === 1) spinNext();
          }
        }
      } else if (isLogEvent(event, "tool_result")) {
        toolResult(event.data);
      } else if (isLogEvent(event, "model_stream_reset")) {
        if (!options.quiet) lineBreak();
        io.err(colors.yellow(`(the model's answer restarted: ${terminalText(event.data.reason)})\n`));
      } else if (isLogEvent(event, "partial_response")) {
        if (!options.quiet) lineBreak();
        io.err(colors.yellow(`(the model's answer was cut off: ${event.data.reason}; kept in the session log)\n`));
      } else if (isLogEvent(event, "model_response") && !options.quiet) {
        lineBreak();
      }
    }
  } finally {
    spinner.stop();
    if (!options.quiet) lineBreak();
  }
  return stream.result;
}
