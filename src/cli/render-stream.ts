import type { AgentStreamEvent, RunResult, Usage } from "../index.js";
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
 * Consumes `agent.stream(...)`: writes text deltas to stdout as they arrive (unless `quiet`), shows
 * each tool call on stderr (with a spinner on a TTY) and its duration, and returns the run result
 * and the tool calls seen. Errors of the run propagate after the spinner is cleared.
 */
export async function renderStream(
  io: CliIo,
  events: AsyncIterable<AgentStreamEvent<unknown, object>>,
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
  try {
    for await (const event of events) {
      switch (event.type) {
        case "text-delta":
          if (!options.quiet && event.text.length > 0) {
            io.out(terminalText(event.text));
            midLine = !event.text.endsWith("\n");
          }
          break;
        case "stream-reset":
          if (!options.quiet) lineBreak();
          io.err(colors.yellow(`(the model's answer restarted: ${terminalText(event.reason)})\n`));
          break;
        case "tool-call-end":
          calls.set(event.toolCallId, { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
          queue.push(event.toolCallId);
          if (queue.length === 1) mark = Date.now();
          if (!options.quiet) {
            lineBreak();
            if (!io.interactive)
              io.err(`${colors.cyan("→")} ${terminalText(event.toolName)}(${preview(event.args, 200)})\n`);
            else if (queue.length === 1) spinNext();
          }
          break;
        case "step-end":
          if (!options.quiet) lineBreak();
          break;
        case "tool-result": {
          const now = Date.now();
          const call = calls.get(event.toolCallId);
          const report: ToolCallReport = {
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            args: call?.args,
            result: event.result,
            isError: event.isError,
            durationMs: now - mark,
          };
          mark = now;
          options.toolCalls.push(report);
          queue.splice(queue.indexOf(event.toolCallId) >>> 0, 1);
          if (!options.quiet) {
            spinner.stop();
            const icon = event.isError ? colors.red("✗") : colors.green("✓");
            const name = terminalText(
              io.interactive ? `${event.toolName}(${preview(call?.args, 60)})` : event.toolName,
            );
            io.err(
              `${icon} ${name} ${colors.dim(formatDuration(report.durationMs ?? 0))} ${colors.dim("→")} ${preview(event.result, 100)}\n`,
            );
            spinNext();
          }
          break;
        }
        case "run-end":
          spinner.stop();
          if (!options.quiet) lineBreak();
          return event.result;
        default:
          break;
      }
    }
  } finally {
    spinner.stop();
    if (!options.quiet) lineBreak();
  }
  throw new Error("The run ended without a result");
}
