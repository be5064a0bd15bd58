import { z } from "zod";
import { DefinitionError } from "../errors/index.js";
import type { RunContext } from "../session/run-context.js";
import { checkToolName, type Tool, tool } from "../tools/tool.js";
import { type DeclaredTool, toolDeclarations } from "./declarations.js";
import { CodeExecutionError, CodeLimitError } from "./errors.js";
import { type CodeLimits, resolveLimits } from "./limits.js";
import { consoleOf, runInSandbox, type ToolCallReply } from "./sandbox.js";

export interface CodeModeOptions {
  /** The tool's name (default `"run_code"`). */
  readonly name?: string;
  /**
   * The tools the program may call: tool objects (their JSON Schemas become TypeScript declarations
   * in the description) or names. Default: every tool of the run except this one, undeclared.
   */
  readonly tools?: readonly (DeclaredTool | string)[];
  readonly limits?: CodeLimits;
  /** Text placed before the generated instructions and declarations. */
  readonly description?: string;
}

/** What the model gets back from a program that finished. */
export interface CodeModeResult {
  readonly result: unknown;
  /** Console output, when the program wrote any. */
  readonly console?: string;
}

const input = z.object({
  code: z.string().min(1).describe("The body of an async JavaScript function; `return` its result."),
});

/**
 * A tool that runs a JavaScript program written by the model in a WebAssembly sandbox (QuickJS in
 * a worker thread), where the allowed tools are async functions on `tools`. Each call the program
 * makes goes through the run like a direct one (validation, hooks, approvals, budget) and is
 * journaled as it happens: its `tool_call` intent (with `parentToolCallId`, id `<parent>.<n>` in
 * program order) committed before the tool runs, then its `context_update` (folded into deps) and
 * `tool_call_result`. The model sees only the program's result and its console output. A program
 * that fails is a failed call (an error result), also after some of its calls ran: those are
 * recorded already, and the error says which took effect. A call that needs approval without an
 * approval handler pauses the run (`approval_requested` naming the program's call; `run_code` stays
 * open). After the decision, or after a crash, the resume runs the program again: calls with a
 * recorded result return it without running, the decided call runs with the decided arguments (or
 * throws the rejection), a call in doubt follows the in-doubt rules, under its own id.
 *
 * @example
 * const agent = new Agent({ model, tools: [add, codeMode({ tools: [add] })] });
 * // the model calls run_code with { code: "let s = 0; for (const n of [1, 2, 3]) s = await tools.add({ a: s, b: n }); return s;" }
 */
export function codeMode<D extends object = Record<string, unknown>>(
  options: CodeModeOptions = {},
): Tool<{ code: string }, CodeModeResult, D> {
  const name = options.name ?? "run_code";
  checkToolName(name);
  const limits = resolveLimits(options.limits);
  const declared = (options.tools ?? []).filter((item): item is DeclaredTool => typeof item !== "string");
  const listed = options.tools?.map((item) => (typeof item === "string" ? item : item.name));
  for (const listedName of listed ?? []) {
    checkToolName(listedName);
    if (listedName === name) throw new DefinitionError({ message: `codeMode: "${name}" cannot call itself` });
  }
  const description = [
    options.description ??
      "Run a JavaScript program in a sandbox and get back the value it returns. Use it to call several tools in one step: loops, Promise.all, filtering and aggregating results before they reach you.",
    "The program is the body of an async function: use `await` and `return` a JSON value. Tools are async methods of the global `tools` (below); a failed call throws an Error whose message says why. `console.log` output is returned with the result. There is no network, file system, timer or module system.",
    `Limits: ${limits.timeMs} ms, ${Math.round(limits.memoryBytes / 1048576)} MiB of memory, ${limits.maxToolCalls} tool calls, a result of at most ${limits.maxOutputBytes} bytes (a longer error text is cut), ${limits.maxConsoleBytes} bytes of console output.`,
    "```ts",
    toolDeclarations(declared, listed === undefined || declared.length < listed.length),
    "```",
  ].join("\n\n");

  return tool<typeof input, CodeModeResult, D>({
    name,
    description,
    input,
    // Its only effects are its nested calls, which the run journals: on resume it runs again and
    // they replay from the log.
    replayable: true,
    execute: async ({ code }, context: RunContext<D>): Promise<CodeModeResult> => {
      const seam = context.seam;
      if (seam === undefined) {
        throw new DefinitionError({ message: `Tool "${name}" runs programs inside an agent run only` });
      }
      const allowed = listed ?? seam.toolNames.filter((item) => item !== name);
      const parentToolCallId = context.toolCallId ?? name;
      let count = 0;
      /** The tools of the calls that ran, in program order. */
      const ran: string[] = [];

      const onToolCall = async (toolName: string, args: unknown, signal: AbortSignal): Promise<ToolCallReply> => {
        count += 1;
        // Ids follow program order, so a replay of the program on resume matches them to the log.
        const outcome = await seam.callTool({
          toolName,
          args,
          parentToolCallId,
          toolCallId: `${parentToolCallId}.${count}`,
          signal: AbortSignal.any([signal, context.signal]),
        });
        if (outcome.ran) ran.push(toolName);
        return outcome.isError ? { ok: false, error: errorText(outcome.result) } : { ok: true, value: outcome.result };
      };

      try {
        const run = await runInSandbox({ code, toolNames: allowed, limits, onToolCall, signal: context.signal });
        return run.console === "" ? { result: run.value } : { result: run.value, console: run.console };
      } catch (error) {
        // A failure, reported as one. The calls that ran before it took effect (their updates and
        // results are in the log and in deps already): the model is told which.
        // Only the program's own errors: one that stops the run (a nested intent not committed) is the run's.
        if (!(error instanceof CodeExecutionError || error instanceof CodeLimitError)) throw error;
        const output = consoleOf(error);
        if (output !== "") error.message += `\nConsole output before the failure:\n${output}`;
        if (ran.length > 0) error.message += `\n${tookEffect(ran)}`;
        throw error;
      }
    },
  });
}

/** "Before the failure, 4 tool calls ran and took effect: add ×3, search." */
function tookEffect(tools: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of tools) counts.set(name, (counts.get(name) ?? 0) + 1);
  const listed = [...counts].map(([name, times]) => (times === 1 ? name : `${name} ×${times}`)).join(", ");
  const calls = tools.length === 1 ? "1 tool call" : `${tools.length} tool calls`;
  return `Before the failure, ${calls} ran and took effect: ${listed}.`;
}

function errorText(result: unknown): string {
  if (typeof result === "string") return result;
  try {
    return JSON.stringify(result) ?? String(result);
  } catch {
    return String(result);
  }
}
